package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Push is a push event as its payload carried it.
type Push struct {
	// Ref is the full ref pushed to (refs/heads/main, refs/tags/v1).
	Ref string
	// Before and After are the ref's commits before and after the push.
	Before, After string
	// DefaultBranch is the repository's default branch.
	DefaultBranch string
	// Deleted is set when the push deleted the ref.
	Deleted bool
	// Pusher is the login (or name) that pushed.
	Pusher string
}

// pushRaw mirrors the members of a push payload read here.
type pushRaw struct {
	Ref     string `json:"ref"`
	Before  string `json:"before"`
	After   string `json:"after"`
	Deleted bool   `json:"deleted"`
	Pusher  *struct {
		Name string `json:"name"`
	} `json:"pusher"`
	Repository *struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

// ParsePush reads a push payload's ref, commits and the repository's
// default branch; ok is false when data is not a push payload (it has no
// ref and pusher).
func ParsePush(data []byte) (Push, bool, error) {
	var r pushRaw
	if err := json.Unmarshal(data, &r); err != nil {
		return Push{}, false, fmt.Errorf("not a JSON GitHub event payload: %w", err)
	}
	if r.Ref == "" || r.Pusher == nil {
		return Push{}, false, nil
	}
	p := Push{Ref: r.Ref, Before: r.Before, After: r.After, Deleted: r.Deleted, Pusher: r.Pusher.Name}
	if r.Repository != nil {
		p.DefaultBranch = r.Repository.DefaultBranch
	}
	return p, true, nil
}

// Ignored explains why a push concerns no work item, "" when it moved
// the default branch: then every work item with an open pull request of
// CogWorks's is woken (its step, then its restack). Every other push —
// to a feature branch, to CogWorks's own cogworks/… branches (its own
// commits echo back as push events), a tag, a deleted branch — is
// answered from the payload alone, without a GitHub request.
func (p Push) Ignored() string {
	branch, ok := strings.CutPrefix(p.Ref, "refs/heads/")
	switch {
	case !ok:
		return fmt.Sprintf("push to %s is not to a branch", p.Ref)
	case p.DefaultBranch == "":
		return fmt.Sprintf("push to %s names no default branch (repository.default_branch)", branch)
	case branch != p.DefaultBranch:
		return fmt.Sprintf("push to %s is not to the default branch %s", branch, p.DefaultBranch)
	case p.Deleted:
		return fmt.Sprintf("push deleted %s", branch)
	case p.Before == p.After:
		return fmt.Sprintf("push left %s where it was", branch)
	}
	return ""
}
