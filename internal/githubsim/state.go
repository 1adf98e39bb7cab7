package githubsim

import (
	"slices"
	"strings"
	"time"
)

type user struct {
	id    int64
	login string
	bot   bool
}

type label struct {
	id                       int64
	name, color, description string
}

type issue struct {
	id                              int64
	number                          int
	title, body, state, stateReason string
	author                          string
	labels                          []string
	assignees                       []string
	created, updated, closed        time.Time
	pull                            bool
	comments                        []int64
	events                          []*event
	parent                          int
	subIssues                       []int
}

type comment struct {
	id               int64
	issue            int
	author, body     string
	created, updated time.Time
	reactions        []*reaction
}

// reaction is one user's reaction to a comment.
type reaction struct {
	id            int64
	user, content string
	created       time.Time
}

type event struct {
	id       int64
	actor    string
	kind     string
	label    string
	commitID string
	created  time.Time
}

type repo struct {
	id             int64
	owner, name    string
	defaultBranch  string
	private        bool
	created        time.Time
	labels         []*label
	issues         map[int]*issue
	nextNumber     int
	comments       map[int64]*comment
	collaborators  map[string]string
	refs           map[string]string
	objects        map[string]*object
	pulls          map[int]*pull
	reviews        []*review
	reviewComments []*reviewComment
	// ciRuns are the seeded workflow runs (checks.go), oldest first.
	ciRuns []*ciRun
	// actionsCanCreatePulls is "Allow GitHub Actions to create and approve
	// pull requests" (tokens.go).
	actionsCanCreatePulls bool
	// rulesetPattern is the branch glob an active ruleset restricts
	// (rulesets.go); "" when none.
	rulesetPattern string
	// moved maps the numbers of transferred issues to "owner/name/issues/N".
	moved map[int]string
}

func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

func (rp *repo) fullName() string { return rp.owner + "/" + rp.name }

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// userLocked returns (creating on first sight) the user with login.
func (s *Server) userLocked(login string) *user {
	key := strings.ToLower(login)
	if u, ok := s.users[key]; ok {
		return u
	}
	u := &user{id: s.id(), login: login, bot: strings.HasSuffix(login, "[bot]")}
	s.users[key] = u
	return u
}

func (s *Server) repoLocked(full string) *repo {
	owner, name, ok := strings.Cut(full, "/")
	if !ok {
		return nil
	}
	return s.repos[repoKey(owner, name)]
}

func (rp *repo) findLabel(name string) *label {
	for _, l := range rp.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// ensureLabel returns the repo label called name, creating it with GitHub's
// default colour when it does not exist (as adding a label to an issue does).
func (s *Server) ensureLabel(rp *repo, name string) *label {
	if l := rp.findLabel(name); l != nil {
		return l
	}
	l := &label{id: s.id(), name: name, color: "ededed"}
	rp.labels = append(rp.labels, l)
	return l
}

func (rp *repo) issueByID(id int64) *issue {
	for _, is := range rp.issues {
		if is.id == id {
			return is
		}
	}
	return nil
}

// attachLabel adds name to is (auto-creating the repo label) and records a
// labeled event. It reports whether the label was new on the issue.
func (s *Server) attachLabel(rp *repo, is *issue, name, actor string, now time.Time) bool {
	l := s.ensureLabel(rp, name)
	for _, have := range is.labels {
		if strings.EqualFold(have, l.name) {
			return false
		}
	}
	is.labels = append(is.labels, l.name)
	is.updated = now
	is.events = append(is.events, &event{id: s.id(), actor: actor, kind: "labeled", label: l.name, created: now})
	return true
}

// detachLabel removes name from is, recording an unlabeled event. It
// reports whether the issue carried the label.
func (s *Server) detachLabel(is *issue, name, actor string, now time.Time) bool {
	for i, have := range is.labels {
		if strings.EqualFold(have, name) {
			is.labels = slices.Delete(is.labels, i, i+1)
			is.updated = now
			is.events = append(is.events, &event{id: s.id(), actor: actor, kind: "unlabeled", label: have, created: now})
			return true
		}
	}
	return false
}

// setState changes an issue's state and records closed/reopened events.
func (s *Server) setState(is *issue, state, reason, actor string, now time.Time) {
	if state == is.state {
		return
	}
	is.state = state
	is.updated = now
	kind := "reopened"
	if state == "closed" {
		kind = "closed"
		is.closed = now
		if reason == "" {
			reason = "completed"
		}
		is.stateReason = reason
	} else {
		is.closed = time.Time{}
		is.stateReason = "reopened"
	}
	is.events = append(is.events, &event{id: s.id(), actor: actor, kind: kind, created: now})
}

// newIssue allocates the next number (shared between issues and PRs).
func (s *Server) newIssue(rp *repo, title, body, author string, now time.Time) *issue {
	rp.nextNumber++
	is := &issue{
		id: s.id(), number: rp.nextNumber, title: title, body: body, state: "open",
		author: author, created: now, updated: now,
	}
	rp.issues[is.number] = is
	s.issueIDs[is.id] = issueKey{repo: repoKey(rp.owner, rp.name), number: is.number}
	s.userLocked(author)
	return is
}

// permission returns the collaborator permission of login on rp. The owner
// is admin; explicit collaborators have their seeded permission; anyone else
// has "read" on a public repo and "none" on a private one.
func (rp *repo) permission(login string) string {
	if strings.EqualFold(login, rp.owner) {
		return "admin"
	}
	if p, ok := rp.collaborators[strings.ToLower(login)]; ok {
		return p
	}
	if rp.private {
		return "none"
	}
	return "read"
}
