package github

import (
	"fmt"
	"net/http"
	"strings"
)

// RulesetError is a write a repository ruleset (or branch protection)
// refused: GitHub answers the git refs API with 422 and the contents API
// or a push with 409 (GH013), "Repository rule violations found" followed
// by the rule, e.g. "Changes must be made through a pull request". It is
// not a race and not transient: the same write is refused until someone
// changes the ruleset, so the stage stops and says which setting to
// change. It deliberately does not match ErrUnprocessable, which callers
// read as a race (a branch created concurrently) and retry.
type RulesetError struct {
	Method, Path string
	Status       int
	Message      string
}

// Error implements error.
func (e *RulesetError) Error() string {
	return fmt.Sprintf("github %s %s: %d refused by a repository ruleset: %s",
		e.Method, e.Path, e.Status, strings.Join(strings.Fields(e.Message), " "))
}

// Transient reports false: repeating the write meets the same rule.
func (e *RulesetError) Transient() bool { return false }

// Configuration says what to change, for the failure report (the engine
// reports a configuration error as such, not as attempts).
func (e *RulesetError) Configuration() string {
	return "A repository ruleset or branch protection refused CogWorks's write (" +
		strings.Join(strings.Fields(e.Message), " ") + "). CogWorks writes only to cogworks/* branches and " +
		"opens pull requests: exclude cogworks/** from the ruleset's target branches, or add CogWorks's " +
		"identity (its GitHub App, or the token's user) to the ruleset's bypass list."
}

// rulesetMarkers are the phrases GitHub's refusals by a ruleset or a
// protected branch carry (REST message, or the push's GH013 line).
var rulesetMarkers = []string{
	"repository rule violations",
	"gh013",
	"changes must be made through a pull request",
	"protected branch hook declined",
	"cannot update this protected ref",
}

// isRulesetRefusal reports a 422 or 409 whose message is a ruleset's.
func isRulesetRefusal(status int, message string) bool {
	if status != http.StatusUnprocessableEntity && status != http.StatusConflict {
		return false
	}
	m := strings.ToLower(message)
	for _, marker := range rulesetMarkers {
		if strings.Contains(m, marker) {
			return true
		}
	}
	return false
}
