// Package rootlib is a root-package library: its main package sits at the
// module root, the most common layout of a Go library.
package rootlib
