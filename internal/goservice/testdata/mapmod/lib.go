// Package mapmod is a root-package library: the map must list it.
package mapmod

import (
	"fmt"

	"example.com/mapmod/inner"
)

// Limit bounds Pairs.
const Limit = 3

var defaultSep = ", "

// Pair is a key and its value.
type Pair[K comparable, V any] struct {
	Key K
	Val V
}

// Store holds values.
type Store interface {
	Get(key string) (string, bool)
}

// Join renders pairs.
func Join(ps []Pair[string, int]) string {
	out := ""
	for _, p := range ps {
		out += fmt.Sprintf("%s=%d%s", p.Key, p.Val, defaultSep)
	}
	return inner.Trim(out)
}

func (p Pair[K, V]) String() string {
	return fmt.Sprint(p.Key)
}

func helper(a, b int,
	c string) error {
	return nil
}
