// Package fmtx formats values for rootlib.
package fmtx

import (
	"strconv"

	"example.com/rootlib/internal/fmtx/deep"
)

// Wrap renders v in brackets.
func Wrap(v int) string { return deep.Open + strconv.Itoa(v) + deep.Close }
