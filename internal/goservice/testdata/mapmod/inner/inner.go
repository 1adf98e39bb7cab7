// Package inner trims.
package inner

import "strings"

// Trim drops a trailing separator.
func Trim(s string) string { return strings.TrimSuffix(s, ", ") }
