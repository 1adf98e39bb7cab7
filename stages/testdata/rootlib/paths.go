package rootlib

import "path"

// Base returns the last element of p.
func Base(p string) string { return path.Base(p) }
