package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// diffHunk returns what GitHub sends as a review comment's diff_hunk: the
// header of the hunk of patch that holds head-side line, and the hunk's
// lines up to and including it ("" when no hunk holds it).
func diffHunk(patch string, line int) string {
	var hunk []string
	newLine := 0
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			hunk = []string{l}
			// "@@ -a,b +c,d @@": the head side starts at c.
			_, plus, _ := strings.Cut(l, "+")
			start, _, _ := strings.Cut(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(plus), "@@")), ",")
			n, err := strconv.Atoi(start)
			if err != nil {
				return ""
			}
			newLine = n
			continue
		}
		if hunk == nil {
			continue
		}
		hunk = append(hunk, l)
		if strings.HasPrefix(l, "-") {
			continue
		}
		if newLine == line {
			return strings.Join(hunk, "\n")
		}
		newLine++
	}
	return ""
}

// reviewComment resolves {id} among the pull request's review comments.
func (c *call) reviewComment(pr *pull) (*reviewComment, bool) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err == nil {
		for _, rc := range c.repo.reviewComments {
			if rc.id == id && rc.pull == pr.number {
				return rc, true
			}
		}
	}
	c.notFound()
	return nil, false
}

// replyReviewComment answers POST pulls/{n}/comments/{id}/replies: a
// reply in the comment's thread, on the thread's file and line. A reply
// to a reply joins the thread of the comment it answers, as on the web.
func (s *Server) replyReviewComment(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	parent, ok := c.reviewComment(pr)
	if !ok {
		return
	}
	var req struct {
		Body *string `json:"body"`
	}
	if !c.decode(&req) {
		return
	}
	if req.Body == nil || *req.Body == "" {
		c.invalid(fieldError{Resource: "PullRequestReviewComment", Field: "body", Code: "missing_field"})
		return
	}
	if c.bodyTooLong("PullRequestReviewComment", req.Body) {
		return
	}
	root := parent.id
	if parent.inReplyTo != 0 {
		root = parent.inReplyTo
	}
	// GitHub files a reply under a review of its own (state COMMENTED).
	rv := &review{id: s.id(), pull: pr.number, author: c.actor, state: "COMMENTED", commitID: parent.commitID, submitted: c.now}
	c.repo.reviews = append(c.repo.reviews, rv)
	rc := &reviewComment{
		id: s.id(), reviewID: rv.id, pull: pr.number, author: c.actor, path: parent.path, body: *req.Body,
		commitID: parent.commitID, side: parent.side, line: parent.line, created: c.now,
		diffHunk: parent.diffHunk, inReplyTo: root,
	}
	c.repo.reviewComments = append(c.repo.reviewComments, rc)
	c.json(http.StatusCreated, c.reviewCommentJSON(rc))
}

// WebhookEvent is one webhook delivery's event name, action and JSON body.
type WebhookEvent struct {
	Event, Action string
	Body          []byte
}

// ReviewEvents returns the deliveries GitHub makes when review reviewID
// of repo is submitted: pull_request_review (submitted), then one
// pull_request_review_comment (created) per inline comment, with the
// payload shapes of GitHub's (sender = the reviewer).
func (s *Server) ReviewEvents(repo string, reviewID, installation int64) ([]WebhookEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil, fmt.Errorf("githubsim: no repository %s", repo)
	}
	var rv *review
	for _, r := range rp.reviews {
		if r.id == reviewID {
			rv = r
		}
	}
	if rv == nil {
		return nil, fmt.Errorf("githubsim: %s has no review %d", repo, reviewID)
	}
	c := &call{s: s, repo: rp, actor: rv.author, now: s.now().UTC(), base: "https://api.github.com"}
	pr := rp.pulls[rv.pull]
	envelope := func(action string) map[string]any {
		m := map[string]any{
			"action": action, "pull_request": c.pullJSON(pr), "repository": c.repoJSON(),
			"sender": c.userJSON(rv.author),
		}
		if installation != 0 {
			m["installation"] = map[string]any{"id": installation, "node_id": nodeID("MDIz", installation)}
		}
		return m
	}
	var out []WebhookEvent
	add := func(event, action string, m map[string]any) error {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("githubsim: %s payload: %w", event, err)
		}
		out = append(out, WebhookEvent{Event: event, Action: action, Body: b})
		return nil
	}
	m := envelope("submitted")
	review := c.reviewJSON(rv)
	// Webhooks spell the state in lower case ("changes_requested"), the
	// REST API in upper case.
	review["state"] = strings.ToLower(rv.state)
	m["review"] = review
	if err := add("pull_request_review", "submitted", m); err != nil {
		return nil, err
	}
	for _, rc := range rp.reviewComments {
		if rc.reviewID != rv.id {
			continue
		}
		m := envelope("created")
		m["comment"] = c.reviewCommentJSON(rc)
		if err := add("pull_request_review_comment", "created", m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DeliverReview sends ReviewEvents of reviewID to App appID's webhook.
func (s *Server) DeliverReview(appID, installation int64, repo string, reviewID int64) ([]HookAttempt, error) {
	events, err := s.ReviewEvents(repo, reviewID, installation)
	if err != nil {
		return nil, err
	}
	var out []HookAttempt
	for _, ev := range events {
		at, err := s.DeliverAppEvent(appID, ev.Event, ev.Action, installation, ev.Body)
		if err != nil {
			return out, fmt.Errorf("githubsim: deliver %s: %w", ev.Event, err)
		}
		out = append(out, at)
	}
	return out, nil
}
