// Package parse reads comma-separated records.
package parse

import "strings"

// Fields splits a record at commas and trims the spaces around each field.
func Fields(record string) []string {
	parts := strings.Split(record, ",")
	for i, p := range parts {
		parts[i] = strings.TrimLeft(p, " ")
	}
	return parts
}
