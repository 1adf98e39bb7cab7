package githubsim

import (
	"net/http"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/linediff"
)

// diffContext is how many unchanged lines GitHub shows around a change;
// only lines inside these hunks can carry an inline review comment.
const diffContext = 3

// mergeBase returns the nearest common ancestor of a and b ("" when none),
// the base of GitHub's three-dot pull-request diff.
func (rp *repo) mergeBase(a, b string) string {
	ofA := map[string]bool{}
	stack := []string{a}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if ofA[cur] {
			continue
		}
		ofA[cur] = true
		if o, ok := rp.objects[cur]; ok && o.kind == "commit" {
			stack = append(stack, o.commit.parents...)
		}
	}
	queue, seen := []string{b}, map[string]bool{}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if ofA[cur] {
			return cur
		}
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if o, ok := rp.objects[cur]; ok && o.kind == "commit" {
			queue = append(queue, o.commit.parents...)
		}
	}
	return ""
}

// fileDiff is one changed file of a pull request.
type fileDiff struct {
	path, status string
	additions    int
	deletions    int
	patch        string
	// right holds the head-side line numbers inside the hunks.
	right map[int]bool
}

// diffFile builds the unified patch of old → new with GitHub's three
// lines of context and records which new-side lines it covers.
func diffFile(oldText, newText string) (patch string, right map[int]bool, adds, dels int) {
	right = map[int]bool{}
	var b strings.Builder
	for _, h := range linediff.Hunks(linediff.Diff(linediff.Lines(oldText), linediff.Lines(newText)), diffContext) {
		b.WriteString(h.Header() + "\n")
		newLine := max(h.NewStart, 1)
		for _, op := range h.Ops {
			b.WriteString(op.String() + "\n")
			switch op.Kind {
			case '-':
				dels++
				continue
			case '+':
				adds++
			}
			right[newLine] = true
			newLine++
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), right, adds, dels
}

// pullDiff lists the files a pull request changes, from the merge base of
// its base and head to head, sorted by path.
func (c *call) pullDiff(pr *pull, head string) []fileDiff {
	base := c.repo.mergeBase(c.branchSHA(pr.baseRef, ""), head)
	before := c.repo.flatten(c.repo.commitTree(base))
	after := c.repo.flatten(c.repo.commitTree(head))
	paths := map[string]bool{}
	for p := range before {
		paths[p] = true
	}
	for p := range after {
		paths[p] = true
	}
	var out []fileDiff
	for p := range paths {
		o, n := before[p], after[p]
		if o.sha == n.sha {
			continue
		}
		fd := fileDiff{path: p, status: "modified"}
		switch {
		case o.sha == "":
			fd.status = "added"
		case n.sha == "":
			fd.status = "removed"
		}
		fd.patch, fd.right, fd.additions, fd.deletions = diffFile(c.blobText(o.sha), c.blobText(n.sha))
		out = append(out, fd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func (c *call) blobText(sha string) string {
	if o, ok := c.repo.objects[sha]; ok && o.kind == "blob" {
		return string(o.data)
	}
	return ""
}

// listPullFiles answers GET /pulls/{number}/files.
func (s *Server) listPullFiles(c *call) {
	pr, ok := c.pull()
	if !ok {
		return
	}
	files := c.pullDiff(pr, c.branchSHA(pr.headRef, pr.headSHA))
	lo, hi := c.paginate(len(files))
	out := []any{}
	for _, f := range files[lo:hi] {
		out = append(out, map[string]any{
			"filename": f.path, "status": f.status, "additions": f.additions, "deletions": f.deletions,
			"changes": f.additions + f.deletions, "patch": f.patch,
		})
	}
	c.json(http.StatusOK, out)
}
