package githubsim

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
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

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffOp is one line of an edit script: ' ', '-' or '+'.
type diffOp struct {
	kind byte
	text string
}

// editScript is a longest-common-subsequence line diff (quadratic, which
// is fine for the simulator's small files).
func editScript(a, b []string) []diffOp {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// diffFile builds the unified patch of old → new with GitHub's three
// lines of context and records which new-side lines it covers.
func diffFile(oldText, newText string) (patch string, right map[int]bool, adds, dels int) {
	ops := editScript(splitLines(oldText), splitLines(newText))
	keep := make([]bool, len(ops))
	for k, op := range ops {
		if op.kind == ' ' {
			continue
		}
		for d := max(0, k-diffContext); d <= min(len(ops)-1, k+diffContext); d++ {
			keep[d] = true
		}
	}
	right = map[int]bool{}
	var b strings.Builder
	oldLine, newLine := 1, 1
	for k := 0; k < len(ops); {
		if !keep[k] {
			if ops[k].kind != '+' {
				oldLine++
			}
			if ops[k].kind != '-' {
				newLine++
			}
			k++
			continue
		}
		end := k
		for end < len(ops) && keep[end] {
			end++
		}
		var body strings.Builder
		oStart, nStart, oCount, nCount := oldLine, newLine, 0, 0
		for _, op := range ops[k:end] {
			fmt.Fprintf(&body, "%c%s\n", op.kind, op.text)
			switch op.kind {
			case ' ':
				right[newLine] = true
				oldLine, newLine, oCount, nCount = oldLine+1, newLine+1, oCount+1, nCount+1
			case '+':
				right[newLine] = true
				newLine, nCount, adds = newLine+1, nCount+1, adds+1
			case '-':
				oldLine, oCount, dels = oldLine+1, oCount+1, dels+1
			}
		}
		if oCount == 0 {
			oStart--
		}
		if nCount == 0 {
			nStart--
		}
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n%s", oStart, oCount, nStart, nCount, body.String())
		k = end
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
