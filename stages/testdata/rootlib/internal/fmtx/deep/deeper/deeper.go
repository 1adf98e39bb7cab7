// Package deeper is three imports away from the root package.
package deeper

import "example.com/rootlib/internal/fmtx/deep/deeper/far"

// Left is the opening bracket.
const Left = "["

var _ = far.Far
