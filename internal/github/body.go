package github

import (
	"fmt"
	"unicode/utf8"
)

// MaxBodyChars is the longest issue, comment, pull-request or review body
// GitHub accepts, in characters; a longer one is refused with 422.
const MaxBodyChars = 65536

// CapBody returns body cut to GitHub's limit with a closing note saying
// how much was left out, or body itself when it fits. It is deterministic,
// so a re-run that compares what it would write with what is on GitHub
// compares capped bodies. Cutting the end keeps the hidden marker, which
// CogWorks writes first.
func CapBody(body string) string {
	n := utf8.RuneCountInString(body)
	if n <= MaxBodyChars {
		return body
	}
	note := fmt.Sprintf("\n\n… (%d characters cut: GitHub accepts at most %d)", n, MaxBodyChars)
	keep := MaxBodyChars - utf8.RuneCountInString(note)
	cut := 0
	for i := range body {
		if keep == 0 {
			cut = i
			break
		}
		keep--
	}
	return body[:cut] + note
}

func capBodyPtr(body *string) *string {
	if body == nil {
		return nil
	}
	capped := CapBody(*body)
	return &capped
}
