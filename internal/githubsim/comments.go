package githubsim

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
)

func (c *call) commentJSON(cm *comment) map[string]any {
	return map[string]any{
		"id": cm.id, "node_id": nodeID("IC", cm.id), "body": cm.body, "user": c.userJSON(cm.author),
		"created_at": ts(cm.created), "updated_at": ts(cm.updated),
		"url":                c.repoURL() + "/issues/comments/" + strconv.FormatInt(cm.id, 10),
		"html_url":           "https://github.com/" + c.repo.fullName() + "/issues/" + itoa(cm.issue) + "#issuecomment-" + strconv.FormatInt(cm.id, 10),
		"issue_url":          c.issueURL(cm.issue),
		"author_association": c.association(cm.author),
	}
}

func (s *Server) listComments(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	lo, hi := c.paginate(len(is.comments))
	out := []any{}
	for _, id := range is.comments[lo:hi] {
		out = append(out, c.commentJSON(c.repo.comments[id]))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) listRepoComments(c *call) {
	ids := make([]int64, 0, len(c.repo.comments))
	for id := range c.repo.comments {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	lo, hi := c.paginate(len(ids))
	out := []any{}
	for _, id := range ids[lo:hi] {
		out = append(out, c.commentJSON(c.repo.comments[id]))
	}
	c.json(http.StatusOK, out)
}

type commentReq struct {
	Body *string `json:"body"`
}

func (s *Server) createComment(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	body, ok := c.commentBody()
	if !ok {
		return
	}
	cm := &comment{id: s.id(), issue: is.number, author: c.actor, body: body, created: c.now, updated: c.now}
	c.repo.comments[cm.id] = cm
	is.comments = append(is.comments, cm.id)
	is.updated = c.now
	c.json(http.StatusCreated, c.commentJSON(cm))
}

// commentBody decodes a comment write; GitHub refuses an empty body.
func (c *call) commentBody() (string, bool) {
	var req commentReq
	if !c.decode(&req) {
		return "", false
	}
	if req.Body == nil || *req.Body == "" {
		c.invalid(fieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
		return "", false
	}
	if c.bodyTooLong("IssueComment", req.Body) {
		return "", false
	}
	return *req.Body, true
}

func (c *call) comment() (*comment, bool) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	cm, ok := c.repo.comments[id]
	if err != nil || !ok {
		c.notFound()
		return nil, false
	}
	return cm, true
}

func (s *Server) getComment(c *call) {
	if cm, ok := c.comment(); ok {
		c.json(http.StatusOK, c.commentJSON(cm))
	}
}

func (s *Server) editComment(c *call) {
	cm, ok := c.comment()
	if !ok {
		return
	}
	body, ok := c.commentBody()
	if !ok {
		return
	}
	cm.body = body
	cm.updated = c.now
	c.json(http.StatusOK, c.commentJSON(cm))
}

func (s *Server) deleteComment(c *call) {
	cm, ok := c.comment()
	if !ok {
		return
	}
	delete(c.repo.comments, cm.id)
	if is := c.repo.issues[cm.issue]; is != nil {
		for i, id := range is.comments {
			if id == cm.id {
				is.comments = append(is.comments[:i:i], is.comments[i+1:]...)
				break
			}
		}
	}
	c.w.WriteHeader(http.StatusNoContent)
}

func (c *call) eventJSON(e *event) map[string]any {
	m := map[string]any{
		"id": e.id, "node_id": nodeID("LE", e.id), "url": c.repoURL() + "/issues/events/" + strconv.FormatInt(e.id, 10),
		"actor": c.userJSON(e.actor), "event": e.kind, "commit_id": nilIfEmpty(e.commitID), "commit_url": nil,
		"created_at": ts(e.created),
	}
	if e.label != "" {
		col := "ededed"
		if l := c.repo.findLabel(e.label); l != nil {
			col = l.color
		}
		m["label"] = map[string]any{"name": e.label, "color": col}
	}
	return m
}

func (s *Server) listEvents(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	lo, hi := c.paginate(len(is.events))
	out := []any{}
	for _, e := range is.events[lo:hi] {
		out = append(out, c.eventJSON(e))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) listSubIssues(c *call) {
	is, ok := c.issue()
	if !ok {
		return
	}
	lo, hi := c.paginate(len(is.subIssues))
	out := []any{}
	for _, n := range is.subIssues[lo:hi] {
		out = append(out, c.issueJSON(c.repo.issues[n]))
	}
	c.json(http.StatusOK, out)
}

// maxSubIssues is GitHub's limit of sub-issues under one issue.
const maxSubIssues = 100

type subIssueReq struct {
	SubIssueID    int64 `json:"sub_issue_id"`
	ReplaceParent bool  `json:"replace_parent"`
}

// addSubIssue links an issue (by id, not number) under {number}. Like
// GitHub it refuses an issue that already has a parent unless
// replace_parent is set, and refuses linking an issue to itself.
func (s *Server) addSubIssue(c *call) {
	parent, ok := c.issue()
	if !ok {
		return
	}
	var req subIssueReq
	if !c.decode(&req) {
		return
	}
	child := c.repo.issueByID(req.SubIssueID)
	if child == nil {
		c.invalid(fieldError{Resource: "Issue", Field: "sub_issue_id", Code: "invalid", Message: "The provided sub-issue does not exist"})
		return
	}
	if child == parent {
		c.invalid(fieldError{Resource: "Issue", Field: "sub_issue_id", Code: "invalid", Message: "An issue cannot be a sub-issue of itself"})
		return
	}
	if len(parent.subIssues) >= maxSubIssues && child.parent != parent.number {
		c.invalid(fieldError{Resource: "Issue", Field: "sub_issue_id", Code: "custom", Message: fmt.Sprintf("Parent issue may not have more than %d sub-issues", maxSubIssues)})
		return
	}
	if child.parent != 0 && !req.ReplaceParent {
		c.invalid(fieldError{Resource: "Issue", Field: "sub_issue_id", Code: "custom", Message: "Issue may not contain duplicate sub-issues and Sub issue may only have one parent"})
		return
	}
	if old := c.repo.issues[child.parent]; old != nil {
		old.subIssues = removeInt(old.subIssues, child.number)
	}
	child.parent = parent.number
	parent.subIssues = append(parent.subIssues, child.number)
	parent.updated = c.now
	c.json(http.StatusCreated, c.issueJSON(child))
}

func (s *Server) removeSubIssue(c *call) {
	parent, ok := c.issue()
	if !ok {
		return
	}
	var req subIssueReq
	if !c.decode(&req) {
		return
	}
	child := c.repo.issueByID(req.SubIssueID)
	if child == nil || child.parent != parent.number {
		c.notFound()
		return
	}
	child.parent = 0
	parent.subIssues = removeInt(parent.subIssues, child.number)
	c.json(http.StatusOK, c.issueJSON(child))
}

func removeInt(list []int, v int) []int {
	out := list[:0:0]
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
