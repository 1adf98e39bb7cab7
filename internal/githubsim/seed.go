package githubsim

import (
	"sort"
	"strings"
	"time"
)

// Issue is a snapshot of a simulated issue or pull request's issue side.
type Issue struct {
	ID        int64
	Number    int
	Title     string
	Body      string
	State     string
	Author    string
	Labels    []string
	IsPull    bool
	Parent    int   // parent issue number, 0 when none
	SubIssues []int // sub-issue numbers in link order
	Comments  int

	// StateReason is why a closed issue was closed (completed,
	// not_planned, duplicate), "reopened" after a reopening, "" otherwise.
	StateReason string
}

// Comment is a snapshot of an issue comment.
type Comment struct {
	ID        int64
	Author    string
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Event is a snapshot of an issue event (labeled, unlabeled, closed, ...).
type Event struct {
	Actor     string
	Event     string
	Label     string
	CreatedAt time.Time
}

// PullRequest is a snapshot of a simulated pull request.
type PullRequest struct {
	Number  int
	Title   string
	Body    string
	State   string
	Author  string
	Head    string
	Base    string
	HeadSHA string
	Draft   bool
	Merged  bool
	Reviews []Review
}

// Review is a snapshot of a pull request review and its inline comments.
type Review struct {
	ID       int64
	Author   string
	State    string // COMMENTED | APPROVED | CHANGES_REQUESTED | PENDING
	Body     string
	Comments []ReviewComment
}

// ReviewComment is one inline review comment.
type ReviewComment struct {
	ID     int64
	Author string
	Path   string
	Line   int
	Body   string
	// DiffHunk is the diff context GitHub sent with the comment.
	DiffHunk string
	// InReplyTo is the thread's first comment for a reply, else 0.
	InReplyTo int64
}

// RequestLog records one served request. Path has any /api/v3 prefix removed.
type RequestLog struct {
	Method string
	Path   string
	Query  string // raw query string, as sent
	// Body is the request body as sent (nil when there was none).
	Body   []byte
	Status int
	Time   time.Time
	// Response is the response body, recorded only on a server built
	// WithResponseLog (the OpenAPI conformance tests read it).
	Response []byte
	// Faulted is set when an injected fault (InjectFault) answered: the
	// answer is the test's, not the simulator's.
	Faulted bool
}

// CreateRepo creates owner/name (public) with defaultBranch pointing at an
// initial commit with an empty tree. Creating an existing repo is a no-op.
func (s *Server) CreateRepo(owner, name, defaultBranch string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := repoKey(owner, name)
	if _, ok := s.repos[key]; ok {
		return
	}
	now := s.now().UTC()
	rp := &repo{
		id: s.id(), owner: owner, name: name, defaultBranch: defaultBranch, created: now,
		issues: map[int]*issue{}, comments: map[int64]*comment{}, collaborators: map[string]string{},
		refs: map[string]string{}, objects: map[string]*object{}, pulls: map[int]*pull{},
	}
	s.userLocked(owner)
	sig := signature{name: owner, email: noreplyEmail(owner), when: now}
	tree := rp.putTree(nil)
	rp.refs["refs/heads/"+defaultBranch] = rp.putCommit(commitObj{tree: tree, author: sig, committer: sig, message: "Initial commit"})
	s.repos[key] = rp
}

// SetPrivate marks a repo private or public; it changes what the permission
// API reports for non-collaborators ("none" vs "read").
func (s *Server) SetPrivate(repo string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoLocked(repo); rp != nil {
		rp.private = private
	}
}

// AddCollaborator grants login a permission (admin|maintain|write|triage|read)
// on repo ("owner/name"). Unknown repos are ignored.
func (s *Server) AddCollaborator(repo, login, permission string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoLocked(repo); rp != nil {
		rp.collaborators[strings.ToLower(login)] = permission
		s.userLocked(login)
	}
}

// SeedFiles commits files on top of branch (created from the default branch
// when missing) and returns the new commit SHA, or "" when repo is unknown.
func (s *Server) SeedFiles(repo, branch string, files map[string]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return ""
	}
	sig := signature{name: rp.owner, email: noreplyEmail(rp.owner), when: s.now().UTC()}
	sha, err := rp.commitFiles(branch, "Seed files", files, nil, sig)
	if err != nil {
		return ""
	}
	return sha
}

// SeedIssue creates an issue authored by author with labels (labeled events
// are attributed to author) and returns its number, or 0 for unknown repos.
func (s *Server) SeedIssue(repo, author, title, body string, labels ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return 0
	}
	now := s.now().UTC()
	is := s.newIssue(rp, title, body, author, now)
	for _, l := range labels {
		s.attachLabel(rp, is, l, author, now)
	}
	return is.number
}

// SeedSubIssue links issue child under parent, as a person in the UI
// would before the test starts (no request, so no rate limit); false when
// either is unknown or child already has a parent.
func (s *Server) SeedSubIssue(repo string, parent, child int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil || rp.issues[parent] == nil || rp.issues[child] == nil || rp.issues[child].parent != 0 {
		return false
	}
	rp.issues[child].parent = parent
	rp.issues[parent].subIssues = append(rp.issues[parent].subIssues, child)
	return true
}

// SeedLabel defines a repository label, as `cogworks init` or a person in
// the UI would before the test or demo starts.
func (s *Server) SeedLabel(repo, name, color, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp := s.repoLocked(repo); rp != nil {
		l := s.ensureLabel(rp, name)
		l.color, l.description = color, description
	}
}

// LabelIssue adds label to issue n as actor, recording a labeled event,
// like a human applying a label in the UI. It reports whether n exists.
func (s *Server) LabelIssue(repo string, n int, actor, label string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil || rp.issues[n] == nil {
		return false
	}
	s.userLocked(actor)
	s.attachLabel(rp, rp.issues[n], label, actor, s.now().UTC())
	return true
}

// UnlabelIssue removes label from issue n as actor, recording an
// unlabeled event. It reports whether the issue carried the label.
func (s *Server) UnlabelIssue(repo string, n int, actor, label string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil || rp.issues[n] == nil {
		return false
	}
	s.userLocked(actor)
	return s.detachLabel(rp.issues[n], label, actor, s.now().UTC())
}

func (s *Server) issueLocked(repo string, n int) (*repo, *issue) {
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil, nil
	}
	return rp, rp.issues[n]
}

// Issue returns a snapshot of issue (or PR) n of repo.
func (s *Server) Issue(repo string, n int) (Issue, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is := s.issueLocked(repo, n)
	if is == nil {
		return Issue{}, false
	}
	return Issue{
		ID: is.id, Number: is.number, Title: is.title, Body: is.body, State: is.state, StateReason: is.stateReason, Author: is.author,
		Labels: append([]string{}, is.labels...), IsPull: is.pull, Parent: is.parent,
		SubIssues: append([]int{}, is.subIssues...), Comments: len(is.comments),
	}, true
}

// Comments returns issue n's comments in creation order.
func (s *Server) Comments(repo string, n int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, is := s.issueLocked(repo, n)
	if is == nil {
		return nil
	}
	out := []Comment{}
	for _, id := range is.comments {
		cm := rp.comments[id]
		out = append(out, Comment{ID: cm.id, Author: cm.author, Body: cm.body, CreatedAt: cm.created, UpdatedAt: cm.updated})
	}
	return out
}

// Reaction is a snapshot of a reaction to a comment.
type Reaction struct {
	User    string
	Content string
}

// Reactions returns the reactions to comment id of repo, oldest first.
func (s *Server) Reactions(repo string, id int64) []Reaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil || rp.comments[id] == nil {
		return nil
	}
	out := []Reaction{}
	for _, r := range rp.comments[id].reactions {
		out = append(out, Reaction{User: r.user, Content: r.content})
	}
	return out
}

// Labels returns the label names on issue n in the order they were added.
func (s *Server) Labels(repo string, n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, is := s.issueLocked(repo, n); is != nil {
		return append([]string{}, is.labels...)
	}
	return nil
}

// RepoLabels returns the names of repo's labels in creation order.
func (s *Server) RepoLabels(repo string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil
	}
	out := []string{}
	for _, l := range rp.labels {
		out = append(out, l.name)
	}
	return out
}

// Events returns issue n's events in order.
func (s *Server) Events(repo string, n int) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is := s.issueLocked(repo, n)
	if is == nil {
		return nil
	}
	out := []Event{}
	for _, e := range is.events {
		out = append(out, Event{Actor: e.actor, Event: e.kind, Label: e.label, CreatedAt: e.created})
	}
	return out
}

// Pulls returns repo's pull requests ordered by number, with their reviews.
func (s *Server) Pulls(repo string) []PullRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil
	}
	out := []PullRequest{}
	for _, pr := range rp.pulls {
		is := rp.issues[pr.number]
		head := pr.headSHA
		if sha, ok := rp.refs["refs/heads/"+pr.headRef]; ok {
			head = sha
		}
		p := PullRequest{
			Number: pr.number, Title: is.title, Body: is.body, State: is.state, Author: is.author,
			Head: pr.headRef, Base: pr.baseRef, HeadSHA: head, Draft: pr.draft, Merged: pr.merged,
		}
		for _, rv := range rp.reviews {
			if rv.pull != pr.number {
				continue
			}
			r := Review{ID: rv.id, Author: rv.author, State: rv.state, Body: rv.body}
			for _, rc := range rp.reviewComments {
				if rc.reviewID == rv.id {
					r.Comments = append(r.Comments, ReviewComment{ID: rc.id, Author: rc.author, Path: rc.path,
						Line: rc.line, Body: rc.body, DiffHunk: rc.diffHunk, InReplyTo: rc.inReplyTo})
				}
			}
			p.Reviews = append(p.Reviews, r)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// BranchSHA returns the commit SHA branch points at.
func (s *Server) BranchSHA(repo, branch string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return "", false
	}
	sha, ok := rp.refs["refs/heads/"+branch]
	return sha, ok
}

// BranchFiles returns every file on branch as path → content, or nil when
// the repo or branch does not exist.
func (s *Server) BranchFiles(repo, branch string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil
	}
	sha, ok := rp.refs["refs/heads/"+branch]
	if !ok {
		return nil
	}
	out := map[string]string{}
	for p, e := range rp.flatten(rp.commitTree(sha)) {
		if o, ok := rp.objects[e.sha]; ok && o.kind == "blob" {
			out[p] = string(o.data)
		}
	}
	return out
}

// Requests returns a copy of the request log in arrival order.
func (s *Server) Requests() []RequestLog {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	return append([]RequestLog{}, s.requests...)
}

// RequestCount returns how many requests were logged since the last reset.
func (s *Server) RequestCount() int {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	return len(s.requests)
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	s.requests = nil
}
