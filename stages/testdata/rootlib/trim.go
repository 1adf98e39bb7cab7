package rootlib

import "strings"

// Trim drops blanks.
func Trim(s string) string { return strings.TrimSpace(s) }
