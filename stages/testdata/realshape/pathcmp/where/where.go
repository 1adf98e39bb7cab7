// Package where reports source locations.
package where

import (
	"runtime"
	"strings"
)

// Here returns the file of its caller.
func Here() string {
	_, file, _, _ := runtime.Caller(1)
	return file
}

// Base returns the last element of a slash-separated source path.
func Base(file string) string {
	i := strings.LastIndex(file, "/")
	return file[i:]
}
