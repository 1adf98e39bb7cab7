package githubsim

import (
	"net/http"
	"strings"
)

// TokenKind is what issued a token; GitHub treats them differently.
type TokenKind string

const (
	// TokenPersonal is a personal access token: it may do what its user
	// may do (the default for tokens added with AddToken).
	TokenPersonal TokenKind = "personal"
	// TokenActions is a workflow's GITHUB_TOKEN: scoped to one repository,
	// limited to the workflow's permissions, refused pull-request creation
	// unless the repository allows it, and limited to 1,000 requests an
	// hour per repository.
	TokenActions TokenKind = "actions"
	// TokenInstallation is a GitHub App installation token, limited to the
	// installation's permissions.
	TokenInstallation TokenKind = "installation"
)

// ActionsBot is the login GitHub shows for GITHUB_TOKEN's writes.
const ActionsBot = "github-actions[bot]"

// grant is what a token may do; tokens without one act with their
// user's full rights.
type grant struct {
	kind  TokenKind
	repo  string            // Actions tokens: the only repository ("owner/name", lower case)
	perms map[string]string // permission → read | write | admin
}

// AddActionsToken registers token as the GITHUB_TOKEN of a workflow run in
// repo ("owner/name") with the workflow's permissions (e.g.
// {"issues": "write", "contents": "write", "pull-requests": "write"}; keys
// may use "-" or "_"). It acts as github-actions[bot].
func (s *Server) AddActionsToken(token, repo string, permissions map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = ActionsBot
	s.userLocked(ActionsBot)
	s.grantLocked(token, &grant{kind: TokenActions, repo: strings.ToLower(repo), perms: normPerms(permissions)})
}

// SetActionsCanCreatePullRequests sets repo's "Allow GitHub Actions to
// create and approve pull requests" (off on a new repository, as on
// GitHub).
func (s *Server) SetActionsCanCreatePullRequests(repo string, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoLocked(repo); rp != nil {
		rp.actionsCanCreatePulls = allow
	}
}

func (s *Server) grantLocked(token string, g *grant) {
	if s.grants == nil {
		s.grants = map[string]*grant{}
	}
	s.grants[token] = g
}

func normPerms(in map[string]string) map[string]string {
	out := map[string]string{"metadata": "read"}
	for k, v := range in {
		out[strings.ReplaceAll(k, "-", "_")] = v
	}
	return out
}

// grantFor returns the grant of the request's token (nil: full rights).
// Callers hold s.mu.
func (s *Server) grantFor(r *http.Request) *grant {
	return s.grants[bearerToken(r)]
}

var permLevels = map[string]int{"read": 1, "write": 2, "admin": 3}

// neededPermission names the permission a request under /repos/{o}/{r}
// needs (any one of names, at level) — GitHub's fine-grained permission
// of each endpoint.
func neededPermission(method, rest string) (names []string, level string) {
	level = "read"
	if method != http.MethodGet && method != http.MethodHead {
		level = "write"
	}
	if strings.HasSuffix(rest, "/check-runs") || strings.HasSuffix(rest, "/check-suites") {
		return []string{"checks"}, level
	}
	seg, _, _ := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	switch seg {
	case "issues", "labels":
		// Issue endpoints serve pull requests too; either permission does.
		return []string{"issues", "pull_requests"}, level
	case "pulls":
		return []string{"pull_requests"}, level
	case "git", "contents", "branches", "tarball", "zipball", "commits", "compare":
		return []string{"contents"}, level
	case "actions":
		if strings.HasPrefix(rest, "/actions/permissions") {
			return []string{"administration"}, level
		}
		return []string{"actions"}, level
	case "check-runs", "check-suites":
		return []string{"checks"}, level
	}
	return []string{"metadata"}, "read"
}

// checkGrant enforces RuleTokenPermissions: a token with a grant may only
// do what its permissions allow, and an Actions token only in its own
// repository. It answers 403 and returns false when refused.
func (c *call) checkGrant() bool {
	g := c.s.grantFor(c.r)
	if g == nil || !c.s.enforced(RuleTokenPermissions) {
		return true
	}
	if g.kind == TokenActions && g.repo != strings.ToLower(c.repo.fullName()) {
		c.message(http.StatusForbidden, "Resource not accessible by integration")
		return false
	}
	rest := strings.TrimPrefix(c.r.URL.Path, "/repos/"+c.r.PathValue("owner")+"/"+c.r.PathValue("repo"))
	names, level := neededPermission(c.r.Method, rest)
	for _, n := range names {
		if permLevels[g.perms[n]] >= permLevels[level] {
			return true
		}
	}
	c.message(http.StatusForbidden, "Resource not accessible by integration")
	return false
}

// actionsPullRefused enforces RuleActionsPullRequests on pull-request
// creation and approval; it answers 403 and returns true when refused.
func (c *call) actionsPullRefused() bool {
	g := c.s.grantFor(c.r)
	if g == nil || g.kind != TokenActions || c.repo.actionsCanCreatePulls || !c.s.enforced(RuleActionsPullRequests) {
		return false
	}
	c.message(http.StatusForbidden, "GitHub Actions is not permitted to create or approve pull requests.")
	return true
}

// getWorkflowPermissions answers GET /actions/permissions/workflow (it
// needs the administration permission, which no GITHUB_TOKEN has).
func (s *Server) getWorkflowPermissions(c *call) {
	c.json(http.StatusOK, map[string]any{
		"default_workflow_permissions":     "read",
		"can_approve_pull_request_reviews": c.repo.actionsCanCreatePulls,
	})
}
