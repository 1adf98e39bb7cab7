package githubsim

import (
	"encoding/json"
	"net/http"
	"strings"
)

func (c *call) userJSON(login string) map[string]any {
	u := c.s.userLocked(login)
	kind := "User"
	if u.bot {
		kind = "Bot"
	}
	return map[string]any{
		"login": u.login, "id": u.id, "node_id": nodeID("U", u.id), "type": kind, "site_admin": false,
		"url": c.base + "/users/" + u.login, "html_url": "https://github.com/" + u.login,
		"avatar_url": "https://avatars.githubusercontent.com/u/" + itoa(int(u.id)),
	}
}

func (c *call) repoJSON() map[string]any {
	rp := c.repo
	vis := "public"
	if rp.private {
		vis = "private"
	}
	perm := rp.permission(c.actor)
	return map[string]any{
		"id": rp.id, "node_id": nodeID("R", rp.id), "name": rp.name, "full_name": rp.fullName(),
		"owner": c.userJSON(rp.owner), "private": rp.private, "visibility": vis,
		"default_branch": rp.defaultBranch, "url": c.repoURL(),
		"html_url": "https://github.com/" + rp.fullName(), "clone_url": "https://github.com/" + rp.fullName() + ".git",
		"created_at": ts(rp.created), "updated_at": ts(rp.created), "pushed_at": ts(rp.created),
		"has_issues": true, "archived": false, "disabled": false, "fork": false,
		"open_issues_count": rp.openCount(),
		"permissions": map[string]any{
			"admin": perm == "admin", "maintain": perm == "admin" || perm == "maintain",
			"push":   perm == "admin" || perm == "maintain" || perm == "write",
			"triage": perm != "read" && perm != "none", "pull": perm != "none",
		},
	}
}

func (rp *repo) openCount() int {
	n := 0
	for _, is := range rp.issues {
		if is.state == "open" {
			n++
		}
	}
	return n
}

func (s *Server) getRepo(c *call) { c.json(http.StatusOK, c.repoJSON()) }

func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newCall(w, r)
	if installationToken(r) {
		// GitHub: an installation token (an App's, or an Actions
		// GITHUB_TOKEN) may not read the authenticated user.
		writeMessage(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	c.json(http.StatusOK, c.userJSON(c.actor))
}

// installationToken reports a request authenticated with an installation
// token (GitHub prefixes them ghs_).
func installationToken(r *http.Request) bool {
	return strings.HasPrefix(bearerToken(r), "ghs_")
}

// handleGraphQL answers the one GraphQL query CogWorks sends, which every
// kind of token may ask: { viewer { login } }.
func (s *Server) handleGraphQL(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newCall(w, r)
	var q struct {
		Query string `json:"query"`
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		writeMessage(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	compact := strings.Join(strings.Fields(q.Query), "")
	if !strings.Contains(compact, "viewer{login}") {
		c.json(http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "the simulator answers only { viewer { login } }"}}})
		return
	}
	c.json(http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": c.actor}}})
}

func (s *Server) handleGetUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newCall(w, r)
	if _, ok := s.users[strings.ToLower(r.PathValue("login"))]; !ok {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.userJSON(r.PathValue("login")))
}

// getPermission answers the collaborator permission API. Non-collaborators
// get "read" on public repos and "none" on private ones (see repo.permission).
func (s *Server) getPermission(c *call) {
	login := c.r.PathValue("user")
	perm := c.repo.permission(login)
	c.json(http.StatusOK, map[string]any{"permission": legacyPermission(perm), "role_name": perm, "user": c.userJSON(login)})
}

// legacyPermission maps role names to the legacy "permission" field, which
// (like GitHub) reports maintain as write and triage as read.
func legacyPermission(p string) string {
	switch p {
	case "maintain":
		return "write"
	case "triage":
		return "read"
	}
	return p
}

func (s *Server) isCollaborator(c *call) {
	login := strings.ToLower(c.r.PathValue("user"))
	if _, ok := c.repo.collaborators[login]; ok || strings.EqualFold(login, c.repo.owner) {
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	c.notFound()
}

func (c *call) labelJSON(l *label) map[string]any {
	return map[string]any{
		"id": l.id, "node_id": nodeID("LA", l.id), "url": c.repoURL() + "/labels/" + l.name,
		"name": l.name, "color": l.color, "description": l.description, "default": false,
	}
}

func (s *Server) listRepoLabels(c *call) {
	lo, hi := c.paginate(len(c.repo.labels))
	out := []any{}
	for _, l := range c.repo.labels[lo:hi] {
		out = append(out, c.labelJSON(l))
	}
	c.json(http.StatusOK, out)
}

type labelReq struct {
	Name        *string `json:"name"`
	NewName     *string `json:"new_name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}

func validColor(col string) bool {
	if len(col) != 6 {
		return false
	}
	for _, r := range strings.ToLower(col) {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func (s *Server) createRepoLabel(c *call) {
	var req labelReq
	if !c.decode(&req) {
		return
	}
	if req.Name == nil || strings.TrimSpace(*req.Name) == "" {
		c.invalid(fieldError{Resource: "Label", Field: "name", Code: "missing_field"})
		return
	}
	if c.repo.findLabel(*req.Name) != nil {
		c.invalid(fieldError{Resource: "Label", Field: "name", Code: "already_exists"})
		return
	}
	l := &label{id: s.id(), name: *req.Name, color: "ededed"}
	if !c.applyLabelStyle(l, req) {
		return
	}
	c.repo.labels = append(c.repo.labels, l)
	c.json(http.StatusCreated, c.labelJSON(l))
}

// applyLabelStyle sets a label's colour and description from a write;
// GitHub refuses a colour that is not six hex digits.
func (c *call) applyLabelStyle(l *label, req labelReq) bool {
	if req.Color != nil {
		col := strings.TrimPrefix(*req.Color, "#")
		if !validColor(col) {
			c.invalid(fieldError{Resource: "Label", Field: "color", Code: "invalid"})
			return false
		}
		l.color = strings.ToLower(col)
	}
	if req.Description != nil {
		l.description = *req.Description
	}
	return true
}

func (s *Server) getRepoLabel(c *call) {
	l := c.repo.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.labelJSON(l))
}

func (s *Server) editRepoLabel(c *call) {
	l := c.repo.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	var req labelReq
	if !c.decode(&req) {
		return
	}
	if req.NewName == nil {
		req.NewName = req.Name
	}
	if req.NewName != nil && !strings.EqualFold(*req.NewName, l.name) && c.repo.findLabel(*req.NewName) != nil {
		c.invalid(fieldError{Resource: "Label", Field: "name", Code: "already_exists"})
		return
	}
	if !c.applyLabelStyle(l, req) {
		return
	}
	if req.NewName != nil && *req.NewName != "" {
		for _, is := range c.repo.issues {
			for i, have := range is.labels {
				if strings.EqualFold(have, l.name) {
					is.labels[i] = *req.NewName
				}
			}
		}
		l.name = *req.NewName
	}
	c.json(http.StatusOK, c.labelJSON(l))
}

func (s *Server) deleteRepoLabel(c *call) {
	l := c.repo.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	for _, is := range c.repo.issues {
		for i, have := range is.labels {
			if strings.EqualFold(have, l.name) {
				is.labels = append(is.labels[:i:i], is.labels[i+1:]...)
				break
			}
		}
	}
	for i, have := range c.repo.labels {
		if have == l {
			c.repo.labels = append(c.repo.labels[:i:i], c.repo.labels[i+1:]...)
			break
		}
	}
	c.w.WriteHeader(http.StatusNoContent)
}
