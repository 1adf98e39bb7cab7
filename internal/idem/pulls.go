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

// FindOrCreatePull returns the PR whose head is p.Head, opening it only if
// none exists (ASSERT-IDEM-001). A merged or closed PR for the head counts
// as found: a human acted on it and CogWorks must not open another. A 422
// from a concurrent creation is treated as found.
func FindOrCreatePull(ctx context.Context, api PullAPI, repo github.Repo, p github.NewPull) (github.PullRequest, bool, error) {
	if pr, ok, err := findPull(ctx, api, repo, p.Head); err != nil || ok {
		return pr, false, err
	}
	pr, err := api.CreatePull(ctx, repo, p)
	if errors.Is(err, github.ErrUnprocessable) {
		found, ok, ferr := findPull(ctx, api, repo, p.Head)
		if ferr != nil {
			return github.PullRequest{}, false, ferr
		}
		if ok {
			return found, false, nil
		}
	}
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("open PR %s → %s in %s: %w", p.Head, p.Base, repo, err)
	}
	return pr, true, nil
}

func findPull(ctx context.Context, api PullAPI, repo github.Repo, head string) (github.PullRequest, bool, error) {
	pulls, err := api.ListPulls(ctx, repo, github.PullFilter{State: "all", Head: head})
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("find PR for head %s in %s: %w", head, repo, err)
	}
	for _, pr := range pulls {
		if pr.Head == head && pr.State == "open" {
			return pr, true, nil
		}
	}
	for _, pr := range pulls {
		if pr.Head == head {
			return pr, true, nil
		}
	}
	return github.PullRequest{}, false, nil
}

// IssueAPI is what FindOrCreateIssue needs from GitHub.
type IssueAPI interface {
	ListIssues(ctx context.Context, repo github.Repo, f github.IssueFilter) ([]github.Issue, error)
	CreateIssue(ctx context.Context, repo github.Repo, i github.NewIssue) (github.Issue, error)
}

// FindOrCreateIssue returns the issue author wrote whose body contains
// marker, creating it only when none exists (ASSERT-IDEM-002). Issues
// opened by anyone else are ignored: anyone can open an issue carrying a
// copied marker. filter narrows the search (e.g. by the
// cogworks:sub-work-item label); closed issues are searched too.
func FindOrCreateIssue(ctx context.Context, api IssueAPI, repo github.Repo, author, marker string, filter github.IssueFilter, ni github.NewIssue) (github.Issue, bool, error) {
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
