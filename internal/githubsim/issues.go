package githubsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
)

func (c *call) issueURL(n int) string { return c.repoURL() + "/issues/" + itoa(n) }

func (c *call) issueJSON(is *issue) map[string]any {
	labels := []any{}
	for _, name := range is.labels {
		if l := c.repo.findLabel(name); l != nil {
			labels = append(labels, c.labelJSON(l))
		}
	}
	assignees := []any{}
	for _, a := range is.assignees {
		assignees = append(assignees, c.userJSON(a))
	}
	completed := 0
	for _, n := range is.subIssues {
		if sub := c.repo.issues[n]; sub != nil && sub.state == "closed" {
			completed++
		}
	}
	pct := 0
	if len(is.subIssues) > 0 {
		pct = completed * 100 / len(is.subIssues)
	}
	html := "https://github.com/" + c.repo.fullName() + "/issues/" + itoa(is.number)
	m := map[string]any{
		"id": is.id, "node_id": nodeID("I", is.id), "number": is.number, "title": is.title, "body": is.body,
		"state": is.state, "state_reason": nilIfEmpty(is.stateReason), "locked": false,
		"user": c.userJSON(is.author), "labels": labels, "assignees": assignees, "comments": len(is.comments),
		"created_at": ts(is.created), "updated_at": ts(is.updated), "closed_at": tsOrNil(is.closed),
		"url": c.issueURL(is.number), "html_url": html, "repository_url": c.repoURL(),
		"labels_url": c.issueURL(is.number) + "/labels{/name}", "comments_url": c.issueURL(is.number) + "/comments",
		"events_url": c.issueURL(is.number) + "/events", "author_association": c.association(is.author),
		"sub_issues_summary": map[string]any{"total": len(is.subIssues), "completed": completed, "percent_completed": pct},
	}
	if is.pull {
		pr := c.repo.pulls[is.number]
		m["html_url"] = "https://github.com/" + c.repo.fullName() + "/pull/" + itoa(is.number)
		m["pull_request"] = map[string]any{
			"url": c.repoURL() + "/pulls/" + itoa(is.number), "html_url": m["html_url"],
			"diff_url": m["html_url"].(string) + ".diff", "patch_url": m["html_url"].(string) + ".patch",
			"merged_at": tsOrNil(pr.mergedAt),
		}
		m["draft"] = pr.draft
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (c *call) association(login string) string {
	switch {
	case strings.EqualFold(login, c.repo.owner):
		return "OWNER"
	case c.repo.collaborators[strings.ToLower(login)] != "":
		return "COLLABORATOR"
	}
	return "NONE"
}

// issue resolves {number}, answering 404 when absent.
func (c *call) issue() (*issue, bool) {
	n, ok := c.intPath("number")
	if !ok {
		return nil, false
	}
	is, ok := c.repo.issues[n]
	if !ok {
		c.notFound()
		return nil, false
	}
	return is, true
}

func hasAllLabels(is *issue, want []string) bool {
	for _, w := range want {
		found := false
		for _, have := range is.labels {
			if strings.EqualFold(have, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// sortIssues orders issues like GitHub's sort/direction parameters
// (created|updated|comments, default created desc).
func sortIssues(list []*issue, sortBy, direction string) {
	less := func(a, b *issue) bool {
		switch sortBy {
		case "updated":
			if !a.updated.Equal(b.updated) {
				return a.updated.Before(b.updated)
			}
		case "comments":
			if len(a.comments) != len(b.comments) {
				return len(a.comments) < len(b.comments)
			}
		}
		return a.number < b.number
	}
	sort.SliceStable(list, func(i, j int) bool {
		if direction == "asc" {
			return less(list[i], list[j])
		}
		return less(list[j], list[i])
	})
}

// listIssues serves GET issues: like GitHub it includes pull requests.
func (s *Server) listIssues(c *call) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	want := splitList(q.Get("labels"))
	var list []*issue
	for _, is := range c.repo.issues {
		if (state == "all" || is.state == state) && hasAllLabels(is, want) {
			if creator := q.Get("creator"); creator != "" && !strings.EqualFold(creator, is.author) {
				continue
			}
			list = append(list, is)
		}
	}
	sortIssues(list, q.Get("sort"), q.Get("direction"))
	lo, hi := c.paginate(len(list))
	out := []any{}
	for _, is := range list[lo:hi] {
		out = append(out, c.issueJSON(is))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) getIssue(c *call) {
	if is, ok := c.issue(); ok {
		c.json(http.StatusOK, c.issueJSON(is))
	}
}

type issueReq struct {
	Title       *string   `json:"title"`
	Body        *string   `json:"body"`
	State       *string   `json:"state"`
	StateReason *string   `json:"state_reason"`
	Labels      *[]string `json:"labels"`
	Assignees   *[]string `json:"assignees"`
}

func (s *Server) createIssue(c *call) {
	var req issueReq
	if !c.decode(&req) {
		return
	}
	if req.Title == nil || strings.TrimSpace(*req.Title) == "" {
		c.invalid(fieldError{Resource: "Issue", Field: "title", Code: "missing_field"})
		return
	}
	if c.bodyTooLong("Issue", req.Body) {
		return
	}
	body := ""
	if req.Body != nil {
		body = *req.Body
	}
	is := s.newIssue(c.repo, *req.Title, body, c.actor, c.now)
	if req.Labels != nil {
		for _, l := range *req.Labels {
			s.attachLabel(c.repo, is, l, c.actor, c.now)
		}
	}
	if req.Assignees != nil {
		is.assignees = append(is.assignees, *req.Assignees...)
	}
	c.json(http.StatusCreated, c.issueJSON(is))
}

func (s *Server) editIssue(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	var req issueReq
	if !c.decode(&req) {
		return
	}
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		c.invalid(fieldError{Resource: "Issue", Field: "state", Code: "invalid"})
		return
	}
	// GitHub's description lists four reasons (and null); an issue closed
	// without one is "completed".
	if req.StateReason != nil && !slices.Contains([]string{"completed", "not_planned", "duplicate", "reopened"}, *req.StateReason) {
		c.invalid(fieldError{Resource: "Issue", Field: "state_reason", Code: "invalid"})
		return
	}
	if c.bodyTooLong("Issue", req.Body) {
		return
	}
	if req.Title != nil {
		is.title = *req.Title
	}
	if req.Body != nil {
		is.body = *req.Body
	}
	if req.Labels != nil {
		s.setLabels(c, is, *req.Labels)
	}
	if req.Assignees != nil {
		is.assignees = append([]string(nil), *req.Assignees...)
	}
	if req.State != nil {
		reason := ""
		if req.StateReason != nil {
			reason = *req.StateReason
		}
		s.setState(is, *req.State, reason, c.actor, c.now)
	}
	is.updated = c.now
	c.json(http.StatusOK, c.issueJSON(is))
}

// setLabels replaces is's labels, recording unlabeled/labeled events.
func (s *Server) setLabels(c *call, is *issue, names []string) {
	for _, have := range append([]string(nil), is.labels...) {
		if !hasAllLabels(&issue{labels: names}, []string{have}) {
			s.detachLabel(is, have, c.actor, c.now)
		}
	}
	for _, n := range names {
		s.attachLabel(c.repo, is, n, c.actor, c.now)
	}
}

func (c *call) issueLabelsJSON(is *issue) []any {
	out := []any{}
	for _, name := range is.labels {
		if l := c.repo.findLabel(name); l != nil {
			out = append(out, c.labelJSON(l))
		}
	}
	return out
}

func (s *Server) listIssueLabels(c *call) {
	if is, ok := c.issue(); ok {
		all := c.issueLabelsJSON(is)
		lo, hi := c.paginate(len(all))
		c.json(http.StatusOK, all[lo:hi])
	}
}

// decodeLabelNames accepts both a bare JSON array and {"labels": [...]}
// (strings or {"name": ...} objects), as GitHub does.
func (c *call) decodeLabelNames() ([]string, bool) {
	var raw json.RawMessage
	if !c.decode(&raw) {
		return nil, false
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err == nil {
		return c.nonEmptyLabels(names)
	}
	var wrapped struct {
		Labels json.RawMessage `json:"labels"`
	}
	if err := json.Unmarshal(raw, &wrapped); err == nil && len(wrapped.Labels) > 0 {
		if err := json.Unmarshal(wrapped.Labels, &names); err == nil {
			return c.nonEmptyLabels(names)
		}
		var objs []struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(wrapped.Labels, &objs); err == nil {
			names = nil
			for _, o := range objs {
				names = append(names, o.Name)
			}
			return c.nonEmptyLabels(names)
		}
	}
	c.invalid(fieldError{Resource: "Label", Field: "labels", Code: "invalid"})
	return nil, false
}

func (s *Server) addIssueLabels(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	names, ok := c.decodeLabelNames()
	if !ok {
		return
	}
	for _, n := range names {
		s.attachLabel(c.repo, is, n, c.actor, c.now)
	}
	c.json(http.StatusOK, c.issueLabelsJSON(is))
}

func (s *Server) setIssueLabels(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	names, ok := c.decodeLabelNames()
	if !ok {
		return
	}
	s.setLabels(c, is, names)
	c.json(http.StatusOK, c.issueLabelsJSON(is))
}

func (s *Server) clearIssueLabels(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	s.setLabels(c, is, nil)
	c.w.WriteHeader(http.StatusNoContent)
}

func (s *Server) removeIssueLabel(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	if !s.detachLabel(is, c.r.PathValue("name"), c.actor, c.now) {
		c.message(http.StatusNotFound, "Label does not exist")
		return
	}
	c.json(http.StatusOK, c.issueLabelsJSON(is))
}

func (c *call) nonEmptyLabels(names []string) ([]string, bool) {
	for _, n := range names {
		if strings.TrimSpace(n) == "" {
			c.invalid(fieldError{Resource: "Label", Field: "name", Code: "missing_field", Message: "label name must not be empty"})
			return nil, false
		}
	}
	return names, true
}
