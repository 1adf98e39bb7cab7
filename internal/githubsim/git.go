package githubsim

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Git modes as written inside tree objects.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeTree    = "40000"
	modeCommit  = "160000"
)

// object is a git object stored under its real SHA-1.
type object struct {
	kind    string // blob | tree | commit
	data    []byte // blob content
	entries []treeEntry
	commit  *commitObj
}

type treeEntry struct {
	mode, name, sha string
}

type signature struct {
	name, email string
	when        time.Time
}

type commitObj struct {
	tree      string
	parents   []string
	author    signature
	committer signature
	message   string
}

// flatEntry is a non-tree entry addressed by its full path.
type flatEntry struct {
	mode, sha string
}

func hashObject(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func (rp *repo) putBlob(data []byte) string {
	sha := hashObject("blob", data)
	if _, ok := rp.objects[sha]; !ok {
		rp.objects[sha] = &object{kind: "blob", data: append([]byte(nil), data...)}
	}
	return sha
}

// treeSortKey orders entries like git: trees compare as if named "name/".
func treeSortKey(e treeEntry) string {
	if e.mode == modeTree {
		return e.name + "/"
	}
	return e.name
}

func (rp *repo) putTree(entries []treeEntry) string {
	sorted := append([]treeEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return treeSortKey(sorted[i]) < treeSortKey(sorted[j]) })
	var buf bytes.Buffer
	for _, e := range sorted {
		raw, _ := hex.DecodeString(e.sha)
		fmt.Fprintf(&buf, "%s %s\x00", e.mode, e.name)
		buf.Write(raw)
	}
	sha := hashObject("tree", buf.Bytes())
	if _, ok := rp.objects[sha]; !ok {
		rp.objects[sha] = &object{kind: "tree", entries: sorted}
	}
	return sha
}

func formatSig(s signature) string {
	return fmt.Sprintf("%s <%s> %d +0000", s.name, s.email, s.when.Unix())
}

func (rp *repo) putCommit(c commitObj) string {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "tree %s\n", c.tree)
	for _, p := range c.parents {
		fmt.Fprintf(&buf, "parent %s\n", p)
	}
	fmt.Fprintf(&buf, "author %s\ncommitter %s\n\n%s", formatSig(c.author), formatSig(c.committer), c.message)
	sha := hashObject("commit", buf.Bytes())
	if _, ok := rp.objects[sha]; !ok {
		cc := c
		cc.parents = append([]string(nil), c.parents...)
		rp.objects[sha] = &object{kind: "commit", commit: &cc}
	}
	return sha
}

func (rp *repo) kindOf(sha string) string {
	if o, ok := rp.objects[sha]; ok {
		return o.kind
	}
	return ""
}

// flatten lists every non-tree entry under treeSHA by full path.
func (rp *repo) flatten(treeSHA string) map[string]flatEntry {
	out := map[string]flatEntry{}
	rp.flattenInto(treeSHA, "", out)
	return out
}

func (rp *repo) flattenInto(treeSHA, prefix string, out map[string]flatEntry) {
	o, ok := rp.objects[treeSHA]
	if !ok || o.kind != "tree" {
		return
	}
	for _, e := range o.entries {
		p := prefix + e.name
		if e.mode == modeTree {
			rp.flattenInto(e.sha, p+"/", out)
			continue
		}
		out[p] = flatEntry{mode: e.mode, sha: e.sha}
	}
}

// buildTree writes the nested trees for a flat path map and returns the root SHA.
func (rp *repo) buildTree(flat map[string]flatEntry) string {
	files := map[string]flatEntry{}
	dirs := map[string]map[string]flatEntry{}
	for p, e := range flat {
		head, rest, nested := strings.Cut(p, "/")
		if !nested {
			files[head] = e
			continue
		}
		if dirs[head] == nil {
			dirs[head] = map[string]flatEntry{}
		}
		dirs[head][rest] = e
	}
	entries := make([]treeEntry, 0, len(files)+len(dirs))
	for name, e := range files {
		entries = append(entries, treeEntry{mode: e.mode, name: name, sha: e.sha})
	}
	for name, sub := range dirs {
		entries = append(entries, treeEntry{mode: modeTree, name: name, sha: rp.buildTree(sub)})
	}
	return rp.putTree(entries)
}

// commitTree returns the tree SHA of commit sha, or "".
func (rp *repo) commitTree(sha string) string {
	if o, ok := rp.objects[sha]; ok && o.kind == "commit" {
		return o.commit.tree
	}
	return ""
}

// isAncestor reports whether anc is reachable from sha through parents.
func (rp *repo) isAncestor(anc, sha string) bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == anc {
			return true
		}
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if o, ok := rp.objects[cur]; ok && o.kind == "commit" {
			stack = append(stack, o.commit.parents...)
		}
	}
	return false
}

// resolveRef turns a branch name, tag, full ref or commit SHA into a commit SHA.
func (rp *repo) resolveRef(ref string) (string, bool) {
	if ref == "" {
		ref = rp.defaultBranch
	}
	for _, cand := range []string{ref, "refs/heads/" + ref, "refs/tags/" + ref} {
		if sha, ok := rp.refs[cand]; ok {
			return sha, true
		}
	}
	if rp.kindOf(ref) == "commit" {
		return ref, true
	}
	return "", false
}

// commitFiles creates a commit on branch whose tree is the branch tree with
// files written (content "" is kept as an empty file) and deletes removed,
// then advances the branch. The branch is created from the default branch
// when missing. It returns the new commit SHA.
func (rp *repo) commitFiles(branch, message string, files map[string]string, deletes []string, who signature) (string, error) {
	ref := "refs/heads/" + branch
	parent, ok := rp.refs[ref]
	if !ok {
		parent, ok = rp.refs["refs/heads/"+rp.defaultBranch]
		if !ok {
			return "", fmt.Errorf("branch %q not found and default branch %q missing", branch, rp.defaultBranch)
		}
	}
	flat := rp.flatten(rp.commitTree(parent))
	for p, content := range files {
		flat[strings.Trim(p, "/")] = flatEntry{mode: modeFile, sha: rp.putBlob([]byte(content))}
	}
	for _, p := range deletes {
		delete(flat, strings.Trim(p, "/"))
	}
	tree := rp.buildTree(flat)
	sha := rp.putCommit(commitObj{tree: tree, parents: []string{parent}, author: who, committer: who, message: message})
	rp.refs[ref] = sha
	return sha, nil
}
