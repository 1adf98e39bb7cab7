package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cogworks/cogworks/internal/escalation"
)

// ActionsPullRequestsSetting is where a repository lets a workflow's
// GITHUB_TOKEN open pull requests. It is off on new repositories, and an
// organisation setting of the same name must allow it first.
const ActionsPullRequestsSetting = `Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests"`

// EscalationActionsPullRequests is the escalation code of a pull request
// GitHub refused to a workflow's GITHUB_TOKEN.
const EscalationActionsPullRequests = "actions_pull_requests_disabled"

// actionsRefusal turns GitHub's 403 "GitHub Actions is not permitted to
// create or approve pull requests" into an escalation that says how to
// turn the setting on; other errors pass unchanged. Retrying cannot help:
// only a repository (or organisation) admin can.
func actionsRefusal(repo Repo, err error) error {
	var api *APIError
	if !errors.As(err, &api) || api.Status != http.StatusForbidden ||
		!strings.Contains(api.Message, "not permitted to create or approve pull requests") {
		return err
	}
	return fmt.Errorf("%w (%w)", &escalation.Error{
		Code: EscalationActionsPullRequests,
		Reason: fmt.Sprintf("GitHub refused to let this workflow's GITHUB_TOKEN open a pull request in %s. "+
			"A repository admin must turn on %s (in an organisation, allow it in the organisation's Actions settings first), "+
			"or CogWorks must run with a GitHub App or a token of its own; then add the cogworks:retry label.",
			repo, ActionsPullRequestsSetting),
	}, err)
}

// ActionsCanCreatePullRequests reads the repository's "Allow GitHub
// Actions to create and approve pull requests" setting. Reading it needs
// the administration permission, which no GITHUB_TOKEN has: such callers
// get an *APIError with status 403 (or 404).
func (c *Client) ActionsCanCreatePullRequests(ctx context.Context, repo Repo) (bool, error) {
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%s/%s/actions/permissions/workflow",
		url.PathEscape(repo.Owner), url.PathEscape(repo.Name)), nil)
	if err != nil {
		return false, err
	}
	var out struct {
		CanApprove bool `json:"can_approve_pull_request_reviews"`
	}
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return false, convertError(fmt.Sprintf("read the Actions workflow permissions of %s", repo), err)
	}
	return out.CanApprove, nil
}
