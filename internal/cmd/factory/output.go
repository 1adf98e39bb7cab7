package factory

import (
	"fmt"
	"strings"
)

func OneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		return s[:max-1] + "…"
	}
	return s
}

func ValidateOutput(got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return fmt.Errorf("--output must be one of %v, got %q", allowed, got)
}

func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
