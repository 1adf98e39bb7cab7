package githubsim

import (
	"encoding/json"
	"fmt"
	"sort"
)

// maxPushCommits is how many commits GitHub lists in a push payload.
const maxPushCommits = 20

// PushEvent returns the delivery GitHub makes when pusher moved branch
// of repo from before (the all-zero SHA for a new branch) to its current
// head: a push payload in GitHub's shape (ref, before, after, the
// commits reachable from after and not from before, oldest first, at
// most 20, with the files each added, removed or modified; head_commit;
// the repository with its default branch; pusher and sender).
func (s *Server) PushEvent(repo, branch, before, pusher string, installation int64) (WebhookEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return WebhookEvent{}, fmt.Errorf("githubsim: no repository %s", repo)
	}
	after, ok := rp.refs["refs/heads/"+branch]
	if !ok {
		return WebhookEvent{}, fmt.Errorf("githubsim: %s has no branch %s", repo, branch)
	}
	c := &call{s: s, repo: rp, actor: pusher, now: s.now().UTC(), base: "https://api.github.com"}
	var shas []string
	for cur := after; cur != "" && cur != before && len(shas) < maxPushCommits; {
		o, ok := rp.objects[cur]
		if !ok || o.kind != "commit" || (before != zeroSHA && rp.isAncestor(cur, before)) {
			break
		}
		shas = append(shas, cur)
		cur = ""
		if len(o.commit.parents) > 0 {
			cur = o.commit.parents[0]
		}
	}
	commits := make([]any, 0, len(shas))
	for i := len(shas) - 1; i >= 0; i-- {
		commits = append(commits, c.pushCommitJSON(shas[i]))
	}
	var head any
	if len(shas) > 0 {
		head = c.pushCommitJSON(shas[0])
	}
	u := s.userLocked(pusher)
	r := c.repoJSON()
	// A push payload's repository is the webhook repository: its times
	// are Unix seconds, and it names who may push less than the REST one.
	delete(r, "permissions")
	r["created_at"], r["pushed_at"] = rp.created.Unix(), c.now.Unix()
	m := map[string]any{
		"ref": "refs/heads/" + branch, "before": before, "after": after,
		"created": before == zeroSHA, "deleted": false, "forced": before != zeroSHA && !rp.isAncestor(before, after),
		"base_ref": nil, "compare": "https://github.com/" + rp.fullName() + "/compare/" + short12(before) + "..." + short12(after),
		"commits": commits, "head_commit": head, "repository": r,
		"pusher": map[string]any{"name": u.login, "email": u.login + "@users.noreply.github.com"},
		"sender": c.userJSON(pusher),
	}
	if installation != 0 {
		m["installation"] = map[string]any{"id": installation, "node_id": nodeID("MDIz", installation)}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("githubsim: push payload: %w", err)
	}
	return WebhookEvent{Event: "push", Body: b}, nil
}

// zeroSHA is the before of a push that created its branch.
const zeroSHA = "0000000000000000000000000000000000000000"

func short12(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// pushCommitJSON is one commit of a push payload, with the paths it
// added, removed and modified against its first parent.
func (c *call) pushCommitJSON(sha string) map[string]any {
	rp := c.repo
	cm := rp.objects[sha].commit
	now := rp.flatten(cm.tree)
	was := map[string]flatEntry{}
	if len(cm.parents) > 0 {
		was = rp.flatten(rp.commitTree(cm.parents[0]))
	}
	added, removed, modified := []string{}, []string{}, []string{}
	for p, e := range now {
		switch old, ok := was[p]; {
		case !ok:
			added = append(added, p)
		case old.sha != e.sha:
			modified = append(modified, p)
		}
	}
	for p := range was {
		if _, ok := now[p]; !ok {
			removed = append(removed, p)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(modified)
	person := func(s signature) map[string]any {
		return map[string]any{"name": s.name, "email": s.email, "date": s.when.UTC().Format("2006-01-02T15:04:05Z")}
	}
	return map[string]any{
		"id": sha, "tree_id": cm.tree, "distinct": true, "message": cm.message,
		"timestamp": cm.committer.when.UTC().Format("2006-01-02T15:04:05Z"),
		"url":       "https://github.com/" + rp.fullName() + "/commit/" + sha,
		"author":    person(cm.author), "committer": person(cm.committer),
		"added": added, "removed": removed, "modified": modified,
	}
}
