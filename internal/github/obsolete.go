package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// The one close CogWorks performs (issue 28, point 5): when a writer
// approved an amended specification and the re-plan no longer has a
// sub-work-item, its sub-issue is closed as not planned. The capability
// is narrow, and the adapter, not the caller, checks it through the API:
// the issue is an issue (not a PR), it is open, CogWorks's own login
// opened it, and it is a sub-issue of the named work item. PRs are never
// closed, and issues.close stays denied.

// selfLogin remembers the login the client acts as, asked once
// (Identity); safe for concurrent use.
type selfLogin struct {
	mu    sync.Mutex
	login string
}

// self returns the login the client acts as, asking GitHub the first time.
func (c *Client) self(ctx context.Context) (string, error) {
	c.me.mu.Lock()
	defer c.me.mu.Unlock()
	if c.me.login != "" {
		return c.me.login, nil
	}
	login, err := c.Identity(ctx)
	if err != nil {
		return "", err
	}
	c.me.login = login
	return login, nil
}

// CloseObsoleteSubIssue closes issue number as not planned
// (state_reason "not_planned") when, as GitHub answers now, it is an open
// issue opened by the login this client acts as and a sub-issue of
// parent. An issue already closed is left alone (closed false, no
// request but the reads). Anything else is refused with a *DeniedError
// before any write: a person's issue, a PR, an issue of another parent.
// Should GitHub not name the client's login, the error is GitHub's and
// nothing is closed. It costs the identity read (once per
// client), one issue read, the parent's sub-issue list and the PATCH.
func (c *Client) CloseObsoleteSubIssue(ctx context.Context, repo Repo, parent, number int) (closed bool, err error) {
	if err := c.manifest.Check(OpCloseObsoleteSubIssue); err != nil {
		return false, err
	}
	what := fmt.Sprintf("%s#%d (sub-issue of #%d)", repo, number, parent)
	refuse := func(why string) error {
		return &DeniedError{Operation: OpCloseObsoleteSubIssue, Detail: what + ": " + why}
	}
	if number == parent {
		return false, refuse("it is the work item itself")
	}
	me, err := c.self(ctx)
	if err != nil {
		// Not a refusal: an outage passes, and nothing is closed
		// meanwhile.
		return false, fmt.Errorf("close %s: tell CogWorks's own login: %w", what, err)
	}
	is, err := c.GetIssue(ctx, repo, number)
	if err != nil {
		return false, fmt.Errorf("close %s: %w", what, err)
	}
	switch {
	case is.IsPullRequest:
		return false, refuse("it is a pull request, which CogWorks never closes")
	case is.User != me:
		return false, refuse(fmt.Sprintf("%s opened it, not CogWorks (%s)", is.User, me))
	case is.State == "closed":
		return false, nil
	}
	subs, err := c.ListSubIssues(ctx, repo, parent)
	if errors.Is(err, ErrNotFound) {
		// No sub-issue API (GitHub Enterprise Server before 3.20, where
		// planning links sub-work-items by a task list): nothing to check
		// the parent by, so nothing is closed.
		return false, refuse("GitHub lists no sub-issues here, so the parent cannot be checked")
	}
	if err != nil {
		return false, fmt.Errorf("close %s: %w", what, err)
	}
	if !slices.ContainsFunc(subs, func(s Issue) bool { return s.Number == number }) {
		return false, refuse("it is not a sub-issue of the work item")
	}
	u := fmt.Sprintf("repos/%s/%s/issues/%d", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), number)
	req, err := c.gh.NewRequest(http.MethodPatch, u, map[string]string{"state": "closed", "state_reason": "not_planned"})
	if err != nil {
		return false, fmt.Errorf("close %s: %w", what, err)
	}
	if _, err := c.gh.Do(ctx, req, nil); err != nil {
		return false, convertError("close "+what+" as not planned", err)
	}
	return true, nil
}
