package github

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Repo names a repository as owner/name.
type Repo struct {
	Owner string
	Name  string
}

// ParseRepo parses "owner/name".
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Repo{}, fmt.Errorf("parse repository %q: want owner/name", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

// String returns "owner/name".
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// RepoInfo is the part of a repository's metadata CogWorks uses.
type RepoInfo struct {
	FullName      string // owner/name
	DefaultBranch string
}

// Label is a repository label.
type Label struct {
	Name        string
	Color       string // six hex digits, no '#'
	Description string
}

// Issue is an issue or, when IsPullRequest is set, the issue view of a PR.
type Issue struct {
	ID            int64
	Number        int
	Title         string
	Body          string
	State         string // open | closed
	Labels        []string
	User          string
	IsPullRequest bool
	HTMLURL       string
	// Repository is the issue's owner/name as GitHub reports it (set by
	// search, whose results span repositories; "" when unknown).
	Repository string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// HasLabel reports whether the issue carries the label name.
func (i Issue) HasLabel(name string) bool {
	for _, l := range i.Labels {
		if l == name {
			return true
		}
	}
	return false
}

// NewIssue is the payload to create an issue.
type NewIssue struct {
	Title  string
	Body   string
	Labels []string
}

// IssueUpdate edits an issue. Nil fields are left unchanged. There is
// deliberately no State field: CogWorks closes an issue only through
// CloseObsoleteSubIssue, which checks it may.
type IssueUpdate struct {
	Title  *string
	Body   *string
	Labels *[]string
}

// IssueFilter selects issues in ListIssues. Empty fields do not filter.
type IssueFilter struct {
	State  string // open | closed | all (default open)
	Labels []string
}

// Comment is an issue (or PR conversation) comment.
type Comment struct {
	ID        int64
	Body      string
	User      string
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// IssueEvent is one entry of an issue's timeline of events
// (labeled, unlabeled, closed, ...).
type IssueEvent struct {
	ID        int64
	Event     string
	Label     string // for labeled/unlabeled
	Actor     string
	CreatedAt time.Time
}

// PullRequest is a pull request.
type PullRequest struct {
	ID      int64
	Number  int
	Title   string
	Body    string
	State   string // open | closed
	Head    string // branch name
	HeadSHA string
	Base    string // branch name
	// User is the login that opened the PR: only the bot's own PRs are
	// CogWorks's (idem.Owned).
	User     string
	Draft    bool
	Merged   bool
	MergedBy string
	HTMLURL  string
}

// NewPull is the payload to open a PR.
type NewPull struct {
	Title string
	Body  string
	Head  string // branch name in the same repository
	Base  string
	Draft bool
}

// PullFilter selects PRs in ListPulls. Empty fields do not filter.
type PullFilter struct {
	State string // open | closed | all (default open)
	Head  string // branch name (the adapter qualifies it with the owner)
	Base  string
}

// ReviewEvent is the event of a PR review. Only ReviewComment is allowed by
// the capability manifest.
type ReviewEvent string

// Review events as GitHub names them.
const (
	ReviewComment        ReviewEvent = "COMMENT"
	ReviewApprove        ReviewEvent = "APPROVE"
	ReviewRequestChanges ReviewEvent = "REQUEST_CHANGES"
)

// NewReview is a PR review with inline comments.
type NewReview struct {
	Event    ReviewEvent
	Body     string
	CommitID string
	Comments []InlineComment
}

// InlineComment is a review comment anchored at a file and line.
type InlineComment struct {
	Path string
	Line int
	Body string
	// User is the comment's author when listed (ignored when creating):
	// only the bot's own review comments carry its markers.
	User string
	// The fields below are set when listed (ignored when creating).
	ID, ReviewID int64
	// InReplyTo is the thread's first comment for a reply, else 0.
	InReplyTo int64
	// DiffHunk is the diff context GitHub keeps with the comment.
	DiffHunk string
	// UserType is "User" or "Bot".
	UserType string
}

// Review is a submitted PR review.
type Review struct {
	ID    int64
	State string
	Body  string
	User  string
	// UserType is "User" or "Bot" (set when listed).
	UserType string
}

// Commit is a git commit object.
type Commit struct {
	SHA     string
	TreeSHA string
	Message string
	Parents []string
}

// TreeEntry is one entry of a git tree. When writing, Content (for a new
// blob) or SHA (existing blob) is set; a nil Content and empty SHA with
// Delete set removes the path.
type TreeEntry struct {
	Path    string
	Mode    string // 100644 by default
	Type    string // blob | tree
	SHA     string
	Content *string
	Delete  bool
}

// RateLimit is the last X-RateLimit-* state seen for one resource.
type RateLimit struct {
	Limit     int
	Remaining int
	Used      int
	Reset     time.Time
	// Resource is X-RateLimit-Resource: "core" for the REST API, "search",
	// "graphql"… Each has its own window; "" when GitHub did not say.
	Resource string
}

// CoreResource is the rate-limit resource of every REST call but search.
const CoreResource = "core"

// Core reports whether the figures are the REST API's (core) window. An
// answer without X-RateLimit-Resource counts as core.
func (r RateLimit) Core() bool { return r.Resource == "" || r.Resource == CoreResource }

// Sentinel errors matched with errors.Is.
var (
	// ErrNotFound is a 404.
	ErrNotFound = errors.New("not found")
	// ErrUnprocessable is a 422 (e.g. a PR already exists for the head).
	ErrUnprocessable = errors.New("unprocessable")
	// ErrIncompleteSearch is a search GitHub cut short (it timed out):
	// the results are partial.
	ErrIncompleteSearch = errors.New("GitHub returned incomplete search results (the search timed out)")
	// ErrCompareTooLarge is a comparison with more files than GitHub
	// lists (300): its file list would be short.
	ErrCompareTooLarge = errors.New("more changed files than GitHub lists")
)

// APIError is a non-2xx GitHub answer with its coordinates.
type APIError struct {
	Method  string
	Path    string
	Status  int
	Message string
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("github %s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// Is maps status codes onto the sentinel errors.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == 404
	case ErrUnprocessable:
		return e.Status == 422
	}
	return false
}

// Transient reports whether repeating the request may succeed (a 5xx or
// a 429).
func (e *APIError) Transient() bool {
	return e.Status >= 500 || e.Status == 429
}
