package factory

import (
	"fmt"
	"strings"
)

// OneLine folds s onto one line and cuts it to max bytes with an ellipsis.
func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max-1] + "…"
	}
	return s
}

// ValidateOutput rejects an --output value that is not one of allowed.
func ValidateOutput(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return fmt.Errorf("--output must be one of %v, got %q", allowed, got)
}

// OrNone shows an empty value as "(none)".
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
