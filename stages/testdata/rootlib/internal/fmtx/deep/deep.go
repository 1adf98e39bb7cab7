// Package deep holds the bracket characters.
package deep

import "example.com/rootlib/internal/fmtx/deep/deeper"

// Open and Close bracket a wrapped value.
const (
	Open  = deeper.Left
	Close = "]"
)

func unexportedDeep() {}
