package githubsim

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenPermissionsAreChecked(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	n := f.srv.SeedIssue(full, "alice", "t", "b")
	f.srv.AddActionsToken("gha-read", full, map[string]string{"issues": "read"})
	reader := clientFor(t, f.url, "gha-read")

	_, _, err := reader.Issues.Get(c, owner, name, n)
	require.NoError(t, err, "issues: read reads issues")
	_, _, err = reader.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String("hi")})
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, statusOf(t, err))
	assert.Contains(t, err.Error(), "Resource not accessible by integration")
	_, _, err = reader.Git.GetRef(c, owner, name, "heads/main")
	assert.Equal(t, http.StatusForbidden, statusOf(t, err), "no contents permission")

	f.srv.CreateRepo(owner, "other", "main")
	f.srv.AddActionsToken("gha-write", full, map[string]string{"issues": "write", "contents": "write"})
	writer := clientFor(t, f.url, "gha-write")
	cm, _, err := writer.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String("hi")})
	require.NoError(t, err)
	assert.Equal(t, ActionsBot, cm.GetUser().GetLogin())
	_, _, err = writer.Repositories.Get(c, owner, "other")
	assert.Equal(t, http.StatusForbidden, statusOf(t, err), "a GITHUB_TOKEN reaches only its own repository")

	f.srv.Relax(RuleTokenPermissions)
	_, _, err = reader.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String("hi")})
	require.NoError(t, err, "relaxed, permissions are not checked")
}

func TestActionsCannotCreatePullRequestsUntilAllowed(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.SeedFiles(full, "feat", map[string]string{"a.txt": "a\n"})
	f.srv.AddActionsToken("gha", full, map[string]string{"pull-requests": "write", "contents": "write"})
	gha := clientFor(t, f.url, "gha")

	_, _, err := gha.PullRequests.Create(c, owner, name, newPull("feat", "main"))
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, statusOf(t, err))
	assert.Contains(t, err.Error(), "GitHub Actions is not permitted to create or approve pull requests")
	path := "/repos/" + full + "/actions/permissions/workflow"
	status, _ := f.rawGetAs(t, path, "gha")
	assert.Equal(t, http.StatusForbidden, status, "the setting needs administration: read")
	status, body := f.rawGetAs(t, path, "")
	require.Equal(t, http.StatusOK, status, "an admin token reads the setting")
	assert.Contains(t, body, `"can_approve_pull_request_reviews":false`)

	f.srv.SetActionsCanCreatePullRequests(full, true)
	pr, _, err := gha.PullRequests.Create(c, owner, name, newPull("feat", "main"))
	require.NoError(t, err, "allowed, the PR opens")
	assert.Equal(t, ActionsBot, pr.GetUser().GetLogin())
}
