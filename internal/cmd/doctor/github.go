package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/github"
)

// accessReader is the GitHub client's view of the credentials' rights.
type accessReader interface {
	Access(ctx context.Context, repo github.Repo) (github.Access, error)
}

// neededAppPermissions are the App permissions CogWorks writes with.
var neededAppPermissions = []string{"contents", "issues", "pull_requests"}

func checkAccess(ctx context.Context, gh factory.Client, repo github.Repo) factory.Check {
	c := factory.Check{Name: "permissions"}
	ar, ok := gh.(accessReader)
	if !ok {
		c.Status, c.Detail = factory.CheckWarn, fmt.Sprintf("the GitHub client %T cannot report its permissions", gh)
		return c
	}
	a, err := ar.Access(ctx, repo)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, err.Error()
		c.Fix = fmt.Sprintf("check that %s exists and the credentials can read it (an App must be installed on it)", repo)
		return c
	}
	switch {
	case a.App:
		var missing []string
		for _, p := range neededAppPermissions {
			if a.AppPermissions[p] != "write" {
				missing = append(missing, fmt.Sprintf("%s (has %q)", p, a.AppPermissions[p]))
			}
		}
		if len(missing) > 0 {
			c.Status, c.Detail = factory.CheckFail, "GitHub App installation lacks write access: "+strings.Join(missing, ", ")
			c.Fix = "in the App's settings grant Contents, Issues and Pull requests: Read and write, then accept the new permissions on the installation"
			return c
		}
		c.Status, c.Detail = factory.CheckOK, "GitHub App installation: contents, issues and pull_requests are writable"
		return c
	case a.ScopesKnown:
		need := "repo"
		if slices.Contains(a.Scopes, "repo") || (!a.Private && slices.Contains(a.Scopes, "public_repo")) {
			need = ""
		}
		if need != "" {
			c.Status = factory.CheckFail
			c.Detail = fmt.Sprintf("classic token scopes [%s] lack %q", strings.Join(a.Scopes, ", "), need)
			c.Fix = "create the personal access token with the repo scope (public_repo suffices for a public repository), or use a fine-grained token or a GitHub App"
			return c
		}
	}
	if a.RepoPermissions == nil {
		if a.ScopesKnown {
			c.Status, c.Detail = factory.CheckOK, "classic token with the repo scope"
			return c
		}
		c.Status = factory.CheckWarn
		c.Detail = "GitHub does not report this token's permissions (Actions' GITHUB_TOKEN or a fine-grained token)"
		c.Fix = "grant contents, issues and pull-requests: write (in the workflow's permissions: block, or on the fine-grained token)"
		return c
	}
	if !a.RepoPermissions["push"] {
		c.Status = factory.CheckFail
		c.Detail = fmt.Sprintf("the credentials have no write access to %s", repo)
		c.Fix = "give the token's user (or the bot) write access to the repository, or use a token with contents, issues and pull-requests: write"
		return c
	}
	c.Status, c.Detail = factory.CheckOK, fmt.Sprintf("write access to %s", repo)
	if a.ScopesKnown {
		c.Detail += " (classic token scopes: " + strings.Join(a.Scopes, ", ") + ")"
	}
	return c
}

// actionsPullsReader reads the repository's "Allow GitHub Actions to
// create and approve pull requests" setting.
type actionsPullsReader interface {
	ActionsCanCreatePullRequests(ctx context.Context, repo github.Repo) (bool, error)
}

// checkActionsPulls reports the setting without which the Action's
// GITHUB_TOKEN cannot open the first (specification) PR. GitHub serves it
// only to credentials with administration: read, which no GITHUB_TOKEN
// has; then doctor says so and names the setting.
func checkActionsPulls(ctx context.Context, gh factory.Client, repo github.Repo) factory.Check {
	c := factory.Check{Name: "actions-prs"}
	r, ok := gh.(actionsPullsReader)
	if !ok {
		c.Status, c.Detail = factory.CheckSkip, fmt.Sprintf("the GitHub client %T cannot read Actions settings", gh)
		return c
	}
	fix := "with the Action and GITHUB_TOKEN, a repository admin turns on " + github.ActionsPullRequestsSetting +
		" (in an organisation, allow it in the organisation's Actions settings first); a GitHub App or a token of CogWorks' own does not need it"
	allowed, err := r.ActionsCanCreatePullRequests(ctx, repo)
	switch {
	case errors.Is(err, github.ErrNotFound) || isForbidden(err):
		c.Status, c.Fix = factory.CheckWarn, fix
		c.Detail = "cannot read whether GitHub Actions may create pull requests (it needs administration: read, which a GITHUB_TOKEN never has)"
	case err != nil:
		c.Status, c.Detail, c.Fix = factory.CheckWarn, err.Error(), fix
	case !allowed:
		c.Status, c.Fix = factory.CheckWarn, fix
		c.Detail = fmt.Sprintf("GitHub Actions may not create pull requests in %s: the Action with GITHUB_TOKEN fails at the first PR", repo)
	default:
		c.Status, c.Detail = factory.CheckOK, fmt.Sprintf("GitHub Actions may create pull requests in %s", repo)
	}
	return c
}

func isForbidden(err error) bool {
	var api *github.APIError
	return errors.As(err, &api) && api.Status == http.StatusForbidden
}

func checkLabels(ctx context.Context, gh factory.Client, repo github.Repo) factory.Check {
	c := factory.Check{Name: "labels"}
	labels, err := gh.ListRepoLabels(ctx, repo)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, fmt.Sprintf("list labels of %s: %v", repo, err)
		c.Fix = "check the credentials can read the repository's issues"
		return c
	}
	have := map[string]bool{}
	for _, l := range labels {
		have[strings.ToLower(l.Name)] = true
	}
	var missing []string
	want := initcmd.CogWorksLabels()
	for _, name := range want {
		if !have[strings.ToLower(name)] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		c.Status = factory.CheckFail
		c.Detail = fmt.Sprintf("%d of %d CogWorks labels missing: %s", len(missing), len(want), strings.Join(missing, ", "))
		c.Fix = fmt.Sprintf("run `cogworks init --repo %s --labels-only` (it creates only the missing ones)", repo)
		return c
	}
	c.Status, c.Detail = factory.CheckOK, fmt.Sprintf("all %d CogWorks labels present", len(want))
	return c
}
