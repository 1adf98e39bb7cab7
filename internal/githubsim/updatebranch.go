package githubsim

import (
	"net/http"
	"sort"
)

// mergeTrees merges the files of ours and theirs against base, file by
// file: a file both sides changed differently is a conflict (no line
// merge). It returns the merged files and the conflicting paths.
func (rp *repo) mergeTrees(base, ours, theirs string) (map[string]flatEntry, []string) {
	b, o, t := rp.flatten(rp.commitTree(base)), rp.flatten(rp.commitTree(ours)), rp.flatten(rp.commitTree(theirs))
	paths := map[string]bool{}
	for _, m := range []map[string]flatEntry{b, o, t} {
		for p := range m {
			paths[p] = true
		}
	}
	out := map[string]flatEntry{}
	var conflicts []string
	for p := range paths {
		var pick flatEntry
		switch {
		case o[p] == t[p], t[p] == b[p]:
			pick = o[p]
		case o[p] == b[p]:
			pick = t[p]
		default:
			conflicts = append(conflicts, p)
			continue
		}
		if pick != (flatEntry{}) {
			out[p] = pick
		}
	}
	sort.Strings(conflicts)
	return out, conflicts
}

// updatePullBranch answers PUT pulls/{n}/update-branch as GitHub does:
// it merges the base branch into the head branch (a merge commit, never a
// rewrite, so commits on the branch stay) and answers 202; 422 when the
// head moved past expected_head_sha, when the base has nothing new, or
// on a merge conflict.
func (s *Server) updatePullBranch(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	var req struct {
		ExpectedHeadSHA string `json:"expected_head_sha"`
	}
	if !c.decode(&req) {
		return
	}
	head, headOK := c.repo.refs["refs/heads/"+pr.headRef]
	base, baseOK := c.repo.refs["refs/heads/"+pr.baseRef]
	unprocessable := func(msg string) {
		c.json(http.StatusUnprocessableEntity, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch"})
	}
	switch {
	case c.repo.issues[pr.number].state != "open" || !headOK || !baseOK:
		unprocessable("Pull request is not open or its branches are gone")
		return
	case req.ExpectedHeadSHA != "" && req.ExpectedHeadSHA != head:
		unprocessable("expected head sha didn’t match current head ref.")
		return
	case c.repo.isAncestor(base, head):
		unprocessable("There are no new commits on the base branch.")
		return
	}
	files, conflicts := c.repo.mergeTrees(c.repo.mergeBase(base, head), head, base)
	if len(conflicts) > 0 {
		unprocessable("merge conflict between base and head")
		return
	}
	sig := c.actorSig()
	sha := c.repo.putCommit(commitObj{tree: c.repo.buildTree(files), parents: []string{head, base}, author: sig, committer: sig,
		message: "Merge branch '" + pr.baseRef + "' into " + pr.headRef})
	c.repo.refs["refs/heads/"+pr.headRef] = sha
	pr.headSHA = sha
	c.json(http.StatusAccepted, map[string]any{"message": "Updating pull request branch.", "url": "https://github.com/" + c.repo.fullName() + "/pull/" + itoa(pr.number)})
}
