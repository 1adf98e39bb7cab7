package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Access is what the credentials in use may do in one repository, as far
// as GitHub tells: the OAuth scopes of a classic token, the repository
// permissions of the authenticated user, and an App installation's
// permissions.
type Access struct {
	// App is set for GitHub App installation auth; AppPermissions then maps
	// permission names (issues, contents, pull_requests, …) to "read" or
	// "write".
	App            bool
	AppPermissions map[string]string
	// Scopes are the X-OAuth-Scopes of a classic token; ScopesKnown is false
	// when GitHub sent no such header (fine-grained and installation
	// tokens, including Actions' GITHUB_TOKEN).
	Scopes      []string
	ScopesKnown bool
	// RepoPermissions are the repository's "permissions" (admin, maintain,
	// push, triage, pull) for the authenticated user; nil when GitHub sent
	// none (installation tokens).
	RepoPermissions map[string]bool
	Private         bool
}

// Access reads what the configured credentials may do in repo: one
// repository request, plus the installation token exchange for App auth
// (which carries the installation's permissions).
func (c *Client) Access(ctx context.Context, repo Repo) (Access, error) {
	r, resp, err := c.gh.Repositories.Get(ctx, repo.Owner, repo.Name)
	if err != nil {
		return Access{}, convertError(fmt.Sprintf("get repository %s", repo), err)
	}
	a := Access{Private: r.GetPrivate(), RepoPermissions: r.GetPermissions()}
	if resp != nil {
		if _, ok := resp.Header["X-Oauth-Scopes"]; ok {
			a.ScopesKnown = true
			for _, s := range strings.Split(resp.Header.Get("X-OAuth-Scopes"), ",") {
				if s = strings.TrimSpace(s); s != "" {
					a.Scopes = append(a.Scopes, s)
				}
			}
		}
	}
	if c.app != nil {
		perms, err := c.app.Permissions()
		if err != nil {
			return Access{}, fmt.Errorf("read App installation %d permissions: %w", c.app.InstallationID(), err)
		}
		raw, err := json.Marshal(perms)
		if err != nil {
			return Access{}, fmt.Errorf("read App installation permissions: %w", err)
		}
		a.App = true
		if err := json.Unmarshal(raw, &a.AppPermissions); err != nil {
			return Access{}, fmt.Errorf("read App installation permissions: %w", err)
		}
	}
	return a, nil
}
