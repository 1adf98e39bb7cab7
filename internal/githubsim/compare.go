package githubsim

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// restCommitJSON is a commit in the REST "commit" shape (compare's
// commits, base_commit and merge_base_commit).
func (c *call) restCommitJSON(sha string) map[string]any {
	m := c.branchJSON("", sha)["commit"].(map[string]any)
	co := c.repo.objects[sha].commit
	parents := []any{}
	for _, p := range co.parents {
		parents = append(parents, map[string]any{"sha": p, "url": c.repoURL() + "/commits/" + p})
	}
	m["node_id"] = nodeID("C", sha)
	m["html_url"] = "https://github.com/" + c.repo.fullName() + "/commit/" + sha
	m["comments_url"] = c.repoURL() + "/commits/" + sha + "/comments"
	m["author"], m["committer"] = nil, nil
	m["parents"] = parents
	return m
}

// compareCommits answers GET compare/{base}...{head} as GitHub does: the
// commits and files from the two refs' merge base to head (three-dot).
func (s *Server) compareCommits(c *call) {
	baseRef, headRef, ok := strings.Cut(c.r.PathValue("basehead"), "...")
	if !ok {
		c.notFound()
		return
	}
	base, okB := c.repo.resolveRef(baseRef)
	head, okH := c.repo.resolveRef(headRef)
	if !okB || !okH {
		c.notFound()
		return
	}
	mb := c.repo.mergeBase(base, head)
	if mb == "" {
		c.notFound()
		return
	}
	ahead := c.repo.commitsSince(head, mb)
	behind := c.repo.commitsSince(base, mb)
	status := "identical"
	switch {
	case len(ahead) > 0 && len(behind) > 0:
		status = "diverged"
	case len(ahead) > 0:
		status = "ahead"
	case len(behind) > 0:
		status = "behind"
	}
	// Oldest first, paginated (files are not).
	oldest := slices.Clone(ahead)
	slices.Reverse(oldest)
	lo, hi := c.paginate(len(oldest))
	commits := []any{}
	for _, sha := range oldest[lo:hi] {
		commits = append(commits, c.restCommitJSON(sha))
	}
	files := []any{}
	for _, f := range c.treeDiff(mb, head) {
		files = append(files, map[string]any{"sha": f.sha, "filename": f.path, "status": f.status, "additions": f.additions,
			"deletions": f.deletions, "changes": f.additions + f.deletions, "patch": f.patch,
			"blob_url":     "https://github.com/" + c.repo.fullName() + "/blob/" + head + "/" + f.path,
			"raw_url":      "https://github.com/" + c.repo.fullName() + "/raw/" + head + "/" + f.path,
			"contents_url": c.repoURL() + "/contents/" + f.path + "?ref=" + head})
	}
	html := "https://github.com/" + c.repo.fullName() + "/compare/" + baseRef + "..." + headRef
	c.json(http.StatusOK, map[string]any{
		"url": c.repoURL() + "/compare/" + baseRef + "..." + headRef, "html_url": html, "permalink_url": html,
		"diff_url": html + ".diff", "patch_url": html + ".patch",
		"base_commit": c.restCommitJSON(base), "merge_base_commit": c.restCommitJSON(mb),
		"status": status, "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
		"commits": commits, "files": files,
	})
}

// commitsSince lists the commits reachable from sha but not from anc,
// newest first.
func (rp *repo) commitsSince(sha, anc string) []string {
	var out []string
	seen := map[string]bool{}
	queue := []string{sha}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] || rp.isAncestor(cur, anc) {
			continue
		}
		seen[cur] = true
		out = append(out, cur)
		if o, ok := rp.objects[cur]; ok && o.kind == "commit" {
			queue = append(queue, o.commit.parents...)
		}
	}
	return out
}

// changedFile is one file of a tree diff.
type changedFile struct {
	fileDiff
	sha string
}

// treeDiff lists the files that differ between two commits' trees.
func (c *call) treeDiff(from, to string) []changedFile {
	before := c.repo.flatten(c.repo.commitTree(from))
	after := c.repo.flatten(c.repo.commitTree(to))
	paths := map[string]bool{}
	for p := range before {
		paths[p] = true
	}
	for p := range after {
		paths[p] = true
	}
	var out []changedFile
	for p := range paths {
		o, n := before[p], after[p]
		if o.sha == n.sha {
			continue
		}
		fd := changedFile{fileDiff: fileDiff{path: p, status: "modified"}, sha: n.sha}
		switch {
		case o.sha == "":
			fd.status = "added"
		case n.sha == "":
			fd.status, fd.sha = "removed", o.sha
		}
		fd.patch, fd.right, fd.additions, fd.deletions = diffFile(c.blobText(o.sha), c.blobText(n.sha))
		out = append(out, fd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}
