package githubsim

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Rule names one refusal of real GitHub that the simulator models. Every
// rule is enforced by default, so the product's tests meet GitHub as it
// is; a test about something else may relax one with WithRelaxed or
// Server.Relax.
type Rule string

const (
	// RuleContentsSize answers 403 too_large to a contents read of a file
	// over 1 MB with the default media type (only the raw and object media
	// types serve files of 1–100 MB).
	RuleContentsSize Rule = "contents-size"
	// RuleReviewDiff refuses an inline review comment on a line outside
	// the pull request's diff hunks (422 "Pull request review thread line
	// must be part of the diff").
	RuleReviewDiff Rule = "review-diff"
	// RuleActionsPullRequests refuses pull-request creation by an Actions
	// GITHUB_TOKEN while the repository's "Allow GitHub Actions to create
	// and approve pull requests" setting is off (the default).
	RuleActionsPullRequests Rule = "actions-pull-requests"
	// RuleBodyLength refuses issue, comment, pull-request and review bodies
	// over 65,536 characters (422).
	RuleBodyLength Rule = "body-length"
	// RuleTokenPermissions checks the permissions of Actions and App
	// installation tokens against what each endpoint needs (403 "Resource
	// not accessible by integration").
	RuleTokenPermissions Rule = "token-permissions"
	// RuleSecondaryRateLimit refuses content-creating requests beyond 80 a
	// minute and 500 an hour (403 with Retry-After), as GitHub documents.
	RuleSecondaryRateLimit Rule = "secondary-rate-limit"
	// RuleActionsTokenQuota limits an Actions GITHUB_TOKEN to 1,000
	// requests an hour per repository.
	RuleActionsTokenQuota Rule = "actions-token-quota"
	// RuleMovedIssue answers 301 to requests on an issue moved with
	// MoveIssue, pointing at its new place.
	RuleMovedIssue Rule = "moved-issue"
)

// AllRules lists every rule the simulator enforces by default.
func AllRules() []Rule {
	return []Rule{RuleContentsSize, RuleReviewDiff, RuleActionsPullRequests, RuleBodyLength,
		RuleTokenPermissions, RuleSecondaryRateLimit, RuleActionsTokenQuota, RuleMovedIssue}
}

// WithRelaxed turns rules off from the start (see Relax).
func WithRelaxed(rules ...Rule) Option {
	return func(s *Server) {
		for _, r := range rules {
			s.relaxed[r] = true
		}
	}
}

// Relax turns rules off: the simulator then serves what GitHub refuses.
// Use it only in a test about something else that the rule would hide.
func (s *Server) Relax(rules ...Rule) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	for _, r := range rules {
		s.relaxed[r] = true
	}
}

// Enforce turns rules back on.
func (s *Server) Enforce(rules ...Rule) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	for _, r := range rules {
		delete(s.relaxed, r)
	}
}

// enforced reports whether rule r is on.
func (s *Server) enforced(r Rule) bool {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	return !s.relaxed[r] && slices.Contains(AllRules(), r)
}

// WithEnterprise makes the simulator a GitHub Enterprise Server of version
// (e.g. "3.17.0"): every response carries X-GitHub-Enterprise-Version, and
// from 3.17 to 3.19 the sub-issues endpoints do not exist (404), as on
// GHES before 3.20.
func WithEnterprise(version string) Option {
	return func(s *Server) { s.enterprise = version }
}

// enterpriseLacks reports whether this GHES version has no endpoint at
// path (sub-issues arrived in 3.20).
func (s *Server) enterpriseLacks(path string) bool {
	if s.enterprise == "" || !strings.Contains(path, "/sub_issue") {
		return false
	}
	var major, minor int
	if _, err := fmt.Sscanf(s.enterprise, "%d.%d", &major, &minor); err != nil {
		return true
	}
	return major < 3 || major == 3 && minor < 20
}

// MaxBodyChars is the longest issue, comment, pull-request or review body
// GitHub accepts, in characters.
const MaxBodyChars = 65536

// bodyTooLong enforces RuleBodyLength: it answers 422 and returns true
// when body is over MaxBodyChars.
func (c *call) bodyTooLong(resource string, body *string) bool {
	if body == nil || utf8.RuneCountInString(*body) <= MaxBodyChars || !c.s.enforced(RuleBodyLength) {
		return false
	}
	c.invalid(fieldError{Resource: resource, Field: "body", Code: "custom",
		Message: fmt.Sprintf("body is too long (maximum is %d characters)", MaxBodyChars)})
	return true
}
