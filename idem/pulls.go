package idem

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// PullAPI is what FindOrCreatePull needs from GitHub.
type PullAPI interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
	CreatePull(ctx context.Context, repo github.Repo, p github.NewPull) (github.PullRequest, error)
}

// ForeignPullError reports that a PR someone else opened occupies a head
// branch CogWorks writes: CogWorks never adopts it (its title and body are
// not the bot's) and cannot open its own beside it, so a human must close
// it. Callers branch on it with errors.As to escalate.
type ForeignPullError struct {
	Head   string
	Number int
	User   string
	Base   string
}

// Error implements error.
func (e *ForeignPullError) Error() string {
	return fmt.Sprintf("PR #%d on head %s (base %s) was opened by %s, not by CogWorks: it is never adopted; close it so that CogWorks can open its own", e.Number, e.Head, e.Base, e.User)
}

// Owned reports whether pr is CogWorks's: the bot (author) opened it and
// its base is the expected branch. Only such a PR's title, body and number
// may become state.
func Owned(pr github.PullRequest, author, base string) bool {
	return author != "" && pr.User == author && (base == "" || pr.Base == base)
}

// Branches names a pull request by its head and base branches.
type Branches struct {
	Head string
	// Base is the branch the PR merges into; "" accepts any.
	Base string
}

// FindOwnPull returns the bot's PR from b.Head to b.Base (open first, else
// any state; a merged or closed one counts because a human acted on it).
// foreign is an open PR on the head that is not the bot's, which blocks
// opening one; it is reported, never adopted.
func FindOwnPull(ctx context.Context, api PullAPI, repo github.Repo, author string, b Branches) (own github.PullRequest, found bool, foreign *github.PullRequest, err error) {
	head, base := b.Head, b.Base
	if author == "" {
		return github.PullRequest{}, false, nil, fmt.Errorf("find PR for head %s in %s: %w", head, repo, ErrNoIdentity)
	}
	pulls, err := api.ListPulls(ctx, repo, github.PullFilter{State: "all", Head: head})
	if err != nil {
		return github.PullRequest{}, false, nil, fmt.Errorf("find PR for head %s in %s: %w", head, repo, err)
	}
	var closed *github.PullRequest
	for i, pr := range pulls {
		switch {
		case pr.Head != head:
		case !Owned(pr, author, base):
			if pr.State == "open" && foreign == nil {
				foreign = &pulls[i]
			}
		case pr.State == "open":
			return pr, true, nil, nil
		case closed == nil:
			closed = &pulls[i]
		}
	}
	if closed != nil {
		return *closed, true, nil, nil
	}
	return github.PullRequest{}, false, foreign, nil
}

// FindOrCreatePull returns the bot's PR whose head is p.Head and base
// p.Base, opening it only if none exists (ASSERT-IDEM-001). A merged or
// closed PR of the bot's counts as found: a human acted on it and CogWorks
// must not open another. A PR anyone else opened on the head is never
// adopted: when it blocks the head the error is a *ForeignPullError. A 422
// from a concurrent creation is treated as found when the bot's PR is
// then there.
func FindOrCreatePull(ctx context.Context, api PullAPI, repo github.Repo, author string, p github.NewPull) (github.PullRequest, bool, error) {
	pr, ok, foreign, err := FindOwnPull(ctx, api, repo, author, Branches{Head: p.Head, Base: p.Base})
	if err != nil || ok {
		return pr, false, err
	}
	if foreign != nil {
		return github.PullRequest{}, false, &ForeignPullError{Head: p.Head, Number: foreign.Number, User: foreign.User, Base: foreign.Base}
	}
	return CreateOrFindPull(ctx, api, repo, author, p)
}

// CreateOrFindPull opens the PR p, for a caller that found none of the
// bot's on p.Head earlier in the same step (FindOwnPull, under the lock):
// looking again before creating would repeat that request. A 422 (a PR on
// the head appeared meanwhile) falls back to FindOwnPull as
// FindOrCreatePull does. created is false when the PR was found instead.
func CreateOrFindPull(ctx context.Context, api PullAPI, repo github.Repo, author string, p github.NewPull) (pr github.PullRequest, created bool, err error) {
	if author == "" {
		return github.PullRequest{}, false, fmt.Errorf("open PR %s → %s in %s: %w", p.Head, p.Base, repo, ErrNoIdentity)
	}
	pr, err = api.CreatePull(ctx, repo, p)
	if errors.Is(err, github.ErrUnprocessable) {
		found, ok, foreign, ferr := FindOwnPull(ctx, api, repo, author, Branches{Head: p.Head, Base: p.Base})
		if ferr != nil {
			return github.PullRequest{}, false, ferr
		}
		if ok {
			return found, false, nil
		}
		if foreign != nil {
			return github.PullRequest{}, false, &ForeignPullError{Head: p.Head, Number: foreign.Number, User: foreign.User, Base: foreign.Base}
		}
	}
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("open PR %s → %s in %s: %w", p.Head, p.Base, repo, err)
	}
	return pr, true, nil
}

// IssueAPI is what FindOrCreateIssue needs from GitHub.
type IssueAPI interface {
	ListIssues(ctx context.Context, repo github.Repo, f github.IssueFilter) ([]github.Issue, error)
	CreateIssue(ctx context.Context, repo github.Repo, i github.NewIssue) (github.Issue, error)
}

// MarkedIssue is the issue FindOrCreateIssue finds by its marker or opens.
type MarkedIssue struct {
	// Marker identifies the issue; New.Body must contain it.
	Marker string
	// Filter narrows the search (e.g. by the cogworks:sub-work-item
	// label); closed issues are searched too unless it says otherwise.
	Filter github.IssueFilter
	// New is the issue opened when none is found.
	New github.NewIssue
}

// FindOrCreateIssue returns the issue author wrote whose body contains
// m.Marker, creating m.New only when none exists (ASSERT-IDEM-002). Issues
// opened by anyone else are ignored: anyone can open an issue carrying a
// copied marker.
func FindOrCreateIssue(ctx context.Context, api IssueAPI, repo github.Repo, author string, m MarkedIssue) (github.Issue, bool, error) {
	marker, filter, ni := m.Marker, m.Filter, m.New
	if !strings.Contains(ni.Body, marker) {
		return github.Issue{}, false, fmt.Errorf("create issue %q in %s: body lacks marker %s", ni.Title, repo, marker)
	}
	if author == "" {
		return github.Issue{}, false, fmt.Errorf("find issue by marker %s in %s: %w", marker, repo, ErrNoIdentity)
	}
	if filter.State == "" {
		filter.State = "all"
	}
	issues, err := api.ListIssues(ctx, repo, filter)
	if err != nil {
		return github.Issue{}, false, fmt.Errorf("find issue by marker %s in %s: %w", marker, repo, err)
	}
	for _, is := range issues {
		if !is.IsPullRequest && is.User == author && strings.Contains(is.Body, marker) {
			return is, false, nil
		}
	}
	created, err := api.CreateIssue(ctx, repo, ni)
	if err != nil {
		return github.Issue{}, false, fmt.Errorf("create issue %q in %s: %w", ni.Title, repo, err)
	}
	return created, true, nil
}
