package githubsim

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

type pull struct {
	number      int
	headRef     string
	baseRef     string
	headSHA     string // last known head SHA (kept when the branch is deleted)
	draft       bool
	merged      bool
	mergedAt    time.Time
	mergedBy    string
	mergeCommit string
}

type review struct {
	id                            int64
	pull                          int
	author, body, state, commitID string
	submitted                     time.Time
}

type reviewComment struct {
	id, reviewID                 int64
	pull                         int
	author, path, body, commitID string
	side                         string
	line                         int
	created                      time.Time
	// diffHunk is the pull request diff's hunk up to the commented line,
	// as GitHub sends it (the reader's context for the comment).
	diffHunk string
	// inReplyTo is the id of the thread's first comment for a reply
	// (0 for the comment that opens a thread).
	inReplyTo int64
}

func (c *call) branchSHA(ref, fallback string) string {
	if sha, ok := c.repo.refs["refs/heads/"+ref]; ok {
		return sha
	}
	return fallback
}

func (c *call) pullJSON(pr *pull) map[string]any {
	is := c.repo.issues[pr.number]
	m := c.issueJSON(is)
	delete(m, "pull_request")
	delete(m, "sub_issues_summary")
	html := "https://github.com/" + c.repo.fullName() + "/pull/" + itoa(pr.number)
	side := func(ref, sha string) map[string]any {
		return map[string]any{
			"label": c.repo.owner + ":" + ref, "ref": ref, "sha": sha,
			"user": c.userJSON(c.repo.owner), "repo": c.repoJSON(),
		}
	}
	headSHA := c.branchSHA(pr.headRef, pr.headSHA)
	m["url"] = c.repoURL() + "/pulls/" + itoa(pr.number)
	m["html_url"] = html
	m["issue_url"] = c.issueURL(pr.number)
	m["diff_url"] = html + ".diff"
	m["head"] = side(pr.headRef, headSHA)
	m["base"] = side(pr.baseRef, c.branchSHA(pr.baseRef, ""))
	m["draft"] = pr.draft
	m["merged"] = pr.merged
	m["merged_at"] = tsOrNil(pr.mergedAt)
	m["merge_commit_sha"] = nilIfEmpty(pr.mergeCommit)
	m["mergeable"] = !pr.merged && is.state == "open"
	m["mergeable_state"] = "clean"
	m["merged_by"] = nil // GitHub sends null until merged
	if pr.mergedBy != "" {
		m["merged_by"] = c.userJSON(pr.mergedBy)
	}
	m["review_comments_url"] = m["url"].(string) + "/comments"
	m["commits_url"] = m["url"].(string) + "/commits"
	return m
}

// headBranch strips an "owner:" prefix from a head/base parameter. Forks
// are not simulated, so a foreign owner yields ok=false.
func (c *call) headBranch(head string) (string, bool) {
	owner, branch, found := strings.Cut(head, ":")
	if !found {
		return head, true
	}
	return branch, strings.EqualFold(owner, c.repo.owner)
}

func (s *Server) createPull(c *call) {
	var req struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !c.decode(&req) {
		return
	}
	if c.actionsPullRefused() || c.bodyTooLong("PullRequest", &req.Body) {
		return
	}
	if strings.TrimSpace(req.Title) == "" {
		c.invalid(fieldError{Resource: "PullRequest", Field: "title", Code: "missing_field"})
		return
	}
	head, ok := c.headBranch(req.Head)
	headSHA, exists := c.repo.refs["refs/heads/"+head]
	if !ok || !exists {
		c.invalid(fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
		return
	}
	baseSHA, exists := c.repo.refs["refs/heads/"+req.Base]
	if !exists {
		c.invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
		return
	}
	for _, pr := range c.repo.pulls {
		if pr.headRef == head && pr.baseRef == req.Base && c.repo.issues[pr.number].state == "open" {
			c.invalid(fieldError{Resource: "PullRequest", Code: "custom", Message: "A pull request already exists for " + c.repo.owner + ":" + head + "."})
			return
		}
	}
	if c.repo.isAncestor(headSHA, baseSHA) {
		c.invalid(fieldError{Resource: "PullRequest", Code: "custom", Message: "No commits between " + req.Base + " and " + head})
		return
	}
	is := s.newIssue(c.repo, req.Title, req.Body, c.actor, c.now)
	is.pull = true
	pr := &pull{number: is.number, headRef: head, baseRef: req.Base, headSHA: headSHA, draft: req.Draft}
	c.repo.pulls[pr.number] = pr
	c.json(http.StatusCreated, c.pullJSON(pr))
}

func (c *call) pull() (*pull, bool) {
	n, ok := c.intPath("number")
	if !ok {
		return nil, false
	}
	pr, ok := c.repo.pulls[n]
	if !ok {
		c.notFound()
		return nil, false
	}
	if sha, ok := c.repo.refs["refs/heads/"+pr.headRef]; ok {
		pr.headSHA = sha
	}
	return pr, true
}

func (s *Server) listPulls(c *call) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	head, headOK := "", true
	if h := q.Get("head"); h != "" {
		head, headOK = c.headBranch(h)
	}
	var list []*issue
	for _, pr := range c.repo.pulls {
		is := c.repo.issues[pr.number]
		switch {
		case !headOK, state != "all" && is.state != state:
		case head != "" && pr.headRef != head:
		case q.Get("base") != "" && pr.baseRef != q.Get("base"):
		default:
			list = append(list, is)
		}
	}
	sortIssues(list, q.Get("sort"), q.Get("direction"))
	lo, hi := c.paginate(len(list))
	out := []any{}
	for _, is := range list[lo:hi] {
		out = append(out, c.pullJSON(c.repo.pulls[is.number]))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) getPull(c *call) {
	if pr, ok := c.pull(); ok {
		c.json(http.StatusOK, c.pullJSON(pr))
	}
}

func (s *Server) editPull(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var req struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if !c.decode(&req) {
		return
	}
	if c.bodyTooLong("PullRequest", req.Body) {
		return
	}
	is := c.repo.issues[pr.number]
	if req.Base != nil {
		if _, ok := c.repo.refs["refs/heads/"+*req.Base]; !ok {
			c.invalid(fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
		pr.baseRef = *req.Base
	}
	if req.State != nil {
		if *req.State != "open" && *req.State != "closed" || pr.merged {
			c.invalid(fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"})
			return
		}
		s.setState(is, *req.State, "", c.actor, c.now)
	}
	if req.Title != nil {
		is.title = *req.Title
	}
	if req.Body != nil {
		is.body = *req.Body
	}
	is.updated = c.now
	c.json(http.StatusOK, c.pullJSON(pr))
}

// mergePull merges a PR. CogWorks must never call it; it exists so tests can
// prove that from the request log. The merge result takes the head tree
// (no three-way merge or conflict detection).
func (s *Server) mergePull(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var req struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if !c.decode(&req) {
		return
	}
	is := c.repo.issues[pr.number]
	if pr.merged || is.state != "open" {
		c.message(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
		return
	}
	if req.SHA != "" && req.SHA != pr.headSHA {
		c.message(http.StatusConflict, "Head branch was modified. Review and try the merge again.")
		return
	}
	baseSHA, ok := c.repo.refs["refs/heads/"+pr.baseRef]
	if !ok {
		c.message(http.StatusMethodNotAllowed, "Base branch was deleted")
		return
	}
	msg := req.CommitTitle
	if msg == "" {
		msg = "Merge pull request #" + itoa(pr.number) + " from " + c.repo.owner + "/" + pr.headRef
	}
	if req.CommitMessage != "" {
		msg += "\n\n" + req.CommitMessage
	}
	parents := []string{baseSHA, pr.headSHA}
	if req.MergeMethod == "squash" || req.MergeMethod == "rebase" {
		parents = parents[:1]
	}
	sig := c.actorSig()
	sha := c.repo.putCommit(commitObj{tree: c.repo.commitTree(pr.headSHA), parents: parents, author: sig, committer: sig, message: msg})
	c.repo.refs["refs/heads/"+pr.baseRef] = sha
	pr.merged, pr.mergedAt, pr.mergedBy, pr.mergeCommit = true, c.now, c.actor, sha
	is.events = append(is.events, &event{id: s.id(), actor: c.actor, kind: "merged", commitID: sha, created: c.now})
	s.setState(is, "closed", "completed", c.actor, c.now)
	c.json(http.StatusOK, map[string]any{"sha": sha, "merged": true, "message": "Pull Request successfully merged"})
}

var reviewStates = map[string]string{
	"": "PENDING", "COMMENT": "COMMENTED", "APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED",
}

func (c *call) reviewJSON(rv *review) map[string]any {
	m := map[string]any{
		"id": rv.id, "node_id": nodeID("PRR", rv.id), "user": c.userJSON(rv.author), "body": rv.body,
		"state": rv.state, "commit_id": rv.commitID,
		"html_url":           "https://github.com/" + c.repo.fullName() + "/pull/" + itoa(rv.pull) + "#pullrequestreview-" + strconv.FormatInt(rv.id, 10),
		"pull_request_url":   c.repoURL() + "/pulls/" + itoa(rv.pull),
		"author_association": c.association(rv.author),
	}
	// A pending review has no submitted_at; GitHub leaves the key out
	// (its schema has it a string, never null).
	if !rv.submitted.IsZero() {
		m["submitted_at"] = ts(rv.submitted)
	}
	return m
}

func (c *call) reviewCommentJSON(rc *reviewComment) map[string]any {
	m := map[string]any{
		"id": rc.id, "node_id": nodeID("PRRC", rc.id), "pull_request_review_id": rc.reviewID,
		"path": rc.path, "line": rc.line, "original_line": rc.line, "side": rc.side, "body": rc.body,
		"user": c.userJSON(rc.author), "commit_id": rc.commitID, "original_commit_id": rc.commitID,
		"created_at": ts(rc.created), "updated_at": ts(rc.created),
		"url":                c.repoURL() + "/pulls/comments/" + strconv.FormatInt(rc.id, 10),
		"html_url":           "https://github.com/" + c.repo.fullName() + "/pull/" + itoa(rc.pull) + "#discussion_r" + strconv.FormatInt(rc.id, 10),
		"pull_request_url":   c.repoURL() + "/pulls/" + itoa(rc.pull),
		"author_association": c.association(rc.author),
		"diff_hunk":          rc.diffHunk, "subject_type": "line", "start_line": nil, "original_start_line": nil,
	}
	// GitHub's schema has in_reply_to_id an integer, never null: a
	// thread's first comment leaves the key out.
	if rc.inReplyTo != 0 {
		m["in_reply_to_id"] = rc.inReplyTo
	}
	return m
}

func (s *Server) listReviews(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var list []*review
	for _, rv := range c.repo.reviews {
		if rv.pull == pr.number {
			list = append(list, rv)
		}
	}
	lo, hi := c.paginate(len(list))
	out := []any{}
	for _, rv := range list[lo:hi] {
		out = append(out, c.reviewJSON(rv))
	}
	c.json(http.StatusOK, out)
}

type inlineReq struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"`
	Body string `json:"body"`
}

func (s *Server) createReview(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var req struct {
		CommitID string      `json:"commit_id"`
		Body     string      `json:"body"`
		Event    string      `json:"event"`
		Comments []inlineReq `json:"comments"`
	}
	if !c.decode(&req) {
		return
	}
	state, known := reviewStates[req.Event]
	if !known {
		c.invalid(fieldError{Resource: "PullRequestReview", Field: "event", Code: "invalid"})
		return
	}
	if req.Event == "APPROVE" && c.actionsPullRefused() || c.bodyTooLong("PullRequestReview", &req.Body) {
		return
	}
	is := c.repo.issues[pr.number]
	switch {
	case req.Event == "APPROVE" && strings.EqualFold(is.author, c.actor):
		c.message(http.StatusUnprocessableEntity, "Unprocessable Entity: Can not approve your own pull request")
		return
	case req.Event == "REQUEST_CHANGES" && strings.EqualFold(is.author, c.actor):
		c.message(http.StatusUnprocessableEntity, "Unprocessable Entity: Can not request changes on your own pull request")
		return
	case req.Event == "REQUEST_CHANGES" && req.Body == "":
		c.invalid(fieldError{Resource: "PullRequestReview", Field: "body", Code: "missing_field"})
		return
	}
	commit := req.CommitID
	if commit == "" {
		commit = pr.headSHA
	}
	files := c.repo.flatten(c.repo.commitTree(commit))
	var inDiff map[string]map[int]bool
	patches := map[string]string{}
	if len(req.Comments) > 0 {
		right := map[string]map[int]bool{}
		for _, fd := range c.pullDiff(pr, commit) {
			patches[fd.path], right[fd.path] = fd.patch, fd.right
		}
		if s.enforced(RuleReviewDiff) {
			inDiff = right
		}
	}
	for _, ic := range req.Comments {
		fe, ok := files[ic.Path]
		if !ok {
			c.message(http.StatusUnprocessableEntity, "Unprocessable Entity: \"Path could not be resolved\"")
			return
		}
		lines := strings.Count(string(c.repo.objects[fe.sha].data), "\n") + 1
		if ic.Line < 1 || ic.Line > lines || ic.Body == "" {
			c.message(http.StatusUnprocessableEntity, "Unprocessable Entity: \"Line could not be resolved\"")
			return
		}
		if inDiff != nil && !inDiff[ic.Path][ic.Line] {
			c.message(http.StatusUnprocessableEntity, "Unprocessable Entity: \"Pull request review thread line must be part of the diff\"")
			return
		}
	}
	rv := &review{id: s.id(), pull: pr.number, author: c.actor, body: req.Body, state: state, commitID: commit}
	if state != "PENDING" {
		rv.submitted = c.now
		// As on GitHub, a review updates the pull request (search's updated:).
		if is := c.repo.issues[pr.number]; is != nil {
			is.updated = c.now
		}
	}
	c.repo.reviews = append(c.repo.reviews, rv)
	for _, ic := range req.Comments {
		side := ic.Side
		if side == "" {
			side = "RIGHT"
		}
		c.repo.reviewComments = append(c.repo.reviewComments, &reviewComment{
			id: s.id(), reviewID: rv.id, pull: pr.number, author: c.actor, path: ic.Path, body: ic.Body,
			commitID: commit, side: side, line: ic.Line, created: c.now,
			diffHunk: diffHunk(patches[ic.Path], ic.Line),
		})
	}
	c.json(http.StatusOK, c.reviewJSON(rv))
}

func (s *Server) listReviewComments(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var list []*reviewComment
	for _, rc := range c.repo.reviewComments {
		if rc.pull == pr.number {
			list = append(list, rc)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].id < list[j].id })
	lo, hi := c.paginate(len(list))
	out := []any{}
	for _, rc := range list[lo:hi] {
		out = append(out, c.reviewCommentJSON(rc))
	}
	c.json(http.StatusOK, out)
}
