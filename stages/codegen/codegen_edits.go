package codegen

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// CodeOutput is the output of the code_generation prompt. Existing files
// change through exact edits, never by being rewritten whole: a 10-line
// fix to a 2,000-line file costs the 10 lines, not the file (whole-file
// answers were truncated at max_tokens on real repositories), and bytes
// the fix does not touch cannot change by accident.
type CodeOutput struct {
	// Edits change existing files, applied in order.
	Edits []CodeEdit `json:"edits"`
	// Files are new files, whole (or files this work item created before).
	Files []CodeFile `json:"files"`
	// Deletes lists files to remove.
	Deletes []string `json:"deletes"`
	// Renames move files; edits then address them by their new path.
	Renames []CodeRename `json:"renames"`
	Notes   string       `json:"notes"`
}

// CodeEdit replaces the one occurrence of Old in the file at Path by New.
type CodeEdit struct {
	Path string `json:"path"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// CodeFile is one new file.
type CodeFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// CodeRename moves a file.
type CodeRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// BaseTree is the tree a SWI's answer applies to: the repository's default
// branch (Repo) under the code the SWI builds on (Overlay: interface files,
// dependency outputs, its own earlier output).
type BaseTree struct {
	Repo    contextpack.Repository
	Overlay map[string]string
	// ScenarioDir is the held-out scenarios' directory (the config's
	// [scenarios] directory; "" for the default): feedback never names a
	// path in it.
	ScenarioDir string
}

// addressable lists the files an answer may address, for naming the
// nearest one to a path that does not exist: the default branch's and the
// overlay's, less the paths generated code may not write (.cogworks/,
// workflows) and the held-out scenarios, so feedback never names them.
func (t BaseTree) addressable(ctx context.Context) ([]string, error) {
	var all []string
	if t.Repo != nil {
		var err error
		if all, err = t.Repo.ListFiles(ctx); err != nil {
			return nil, fmt.Errorf("list the repository's files: %w", err)
		}
	}
	all = append(slices.Clone(all), slices.Collect(maps.Keys(t.Overlay))...)
	all = slices.DeleteFunc(contextpack.ExcludeScenarios(all, t.ScenarioDir), func(p string) bool {
		return stagekit.GeneratedPathProblem(p) != ""
	})
	slices.Sort(all)
	return slices.Compact(all), nil
}

// read returns the content of p and whether it exists.
func (t BaseTree) read(ctx context.Context, p string) (string, bool, error) {
	if c, ok := t.Overlay[p]; ok {
		return c, true, nil
	}
	c, ok, err := t.upstream(ctx, p)
	return c, ok, err
}

// upstream reads p from the default branch only.
func (t BaseTree) upstream(ctx context.Context, p string) (string, bool, error) {
	if t.Repo == nil {
		return "", false, nil
	}
	b, err := t.Repo.ReadFile(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", p, err)
	}
	return string(b), true, nil
}

// changeSet is an applied answer: the new content of every written file
// and the removed paths.
type changeSet struct {
	Files   map[string]string
	Deleted []string
	// Created are the written paths absent from the default branch: the
	// only files the formatter may rewrite whole.
	Created map[string]bool
	// Notes are the failing tests validation excused (pre-existing at
	// base, or flaky), for the audit trail.
	Notes []string
}

// EditProblem is one part of an answer that could not be applied.
type EditProblem struct {
	Path    string
	Message string
	// Nearest is the file's closest lines to a search text that did not
	// match, for the model to copy exactly next time.
	Nearest string
}

// ApplyAnswer applies out to the base tree: renames, then edits, then new
// files, then deletions. Every problem is collected (not just the first)
// so that one retry can fix them all; the answer is applied only if there
// are none.
func ApplyAnswer(ctx context.Context, base BaseTree, out CodeOutput) (changeSet, []EditProblem, error) {
	cs := changeSet{Files: map[string]string{}, Created: map[string]bool{}}
	gone := map[string]bool{}
	var probs []EditProblem
	var listed []string
	listOnce := false
	// files lists the paths that exist now (listed once, on the first
	// missing path: most answers have none). The suggestion it feeds is
	// best effort: a listing that fails only leaves it out of the
	// feedback (the reads below report a broken repository).
	files := func() []string {
		if !listOnce {
			listOnce = true
			listed, _ = base.addressable(ctx)
		}
		out := slices.DeleteFunc(slices.Clone(listed), func(p string) bool { return gone[p] })
		for p := range cs.Files {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return out
	}
	read := func(p string) (string, bool, error) {
		if gone[p] {
			return "", false, nil
		}
		if c, ok := cs.Files[p]; ok {
			return c, true, nil
		}
		return base.read(ctx, p)
	}
	for _, r := range out.Renames {
		from, to := path.Clean(r.From), path.Clean(r.To)
		c, ok, err := read(from)
		if err != nil {
			return cs, nil, err
		}
		_, exists, err := read(to)
		if err != nil {
			return cs, nil, err
		}
		switch {
		case !ok:
			probs = append(probs, EditProblem{Path: from, Message: missingFile("rename", from, files)})
		case exists:
			probs = append(probs, EditProblem{Path: to, Message: "rename: the target already exists"})
		default:
			cs.Files[to] = c
			delete(cs.Files, from)
			gone[from], gone[to] = true, false
		}
	}
	for i, e := range out.Edits {
		p := path.Clean(e.Path)
		c, ok, err := read(p)
		if err != nil {
			return cs, nil, err
		}
		where := fmt.Sprintf("edit %d", i+1)
		switch n := strings.Count(c, e.Old); {
		case !ok:
			probs = append(probs, EditProblem{Path: p, Message: missingFile(where, p, files) + "; create new files under `files`"})
		case e.Old == "":
			probs = append(probs, EditProblem{Path: p, Message: where + ": `old` is empty; quote the exact lines to replace"})
		case n == 0 && ElisionMarker(e.Old, c) != "":
			probs = append(probs, EditProblem{Path: p, Message: elidedOld(where, ElisionMarker(e.Old, c)), Nearest: NearestLines(c, e.Old)})
		case n == 0:
			probs = append(probs, EditProblem{Path: p, Message: where + ": `old` does not occur in the file", Nearest: NearestLines(c, e.Old)})
		case n > 1:
			probs = append(probs, EditProblem{Path: p, Message: fmt.Sprintf("%s: `old` occurs %d times (lines %s); include more surrounding lines so it occurs once",
				where, n, strings.Join(matchLines(c, e.Old), ", "))})
		case NewElisionMarker(e.New, e.Old, c) != "":
			probs = append(probs, EditProblem{Path: p, Message: elidedNew(where, NewElisionMarker(e.New, e.Old, c))})
		default:
			cs.Files[p] = strings.Replace(c, e.Old, e.New, 1)
		}
	}
	for _, f := range out.Files {
		p := path.Clean(f.Path)
		_, upstream, err := base.upstream(ctx, p)
		if err != nil {
			return cs, nil, err
		}
		if upstream && !gone[p] {
			probs = append(probs, EditProblem{Path: p, Message: "the file exists in the repository; change it with `edits`, never by rewriting it whole"})
			continue
		}
		cs.Files[p] = f.Content
		gone[p] = false
	}
	for _, d := range out.Deletes {
		p := path.Clean(d)
		if _, ok, err := read(p); err != nil {
			return cs, nil, err
		} else if !ok {
			probs = append(probs, EditProblem{Path: p, Message: missingFile("delete", p, files)})
			continue
		}
		delete(cs.Files, p)
		gone[p] = true
	}
	for p, g := range gone {
		if !g {
			continue
		}
		if _, ok, err := base.read(ctx, p); err != nil {
			return cs, nil, err
		} else if ok {
			cs.Deleted = append(cs.Deleted, p)
		}
	}
	slices.Sort(cs.Deleted)
	for p := range cs.Files {
		if _, ok, err := base.upstream(ctx, p); err != nil {
			return cs, nil, err
		} else if !ok {
			cs.Created[p] = true
		}
	}
	return cs, probs, nil
}

// matchLines lists the 1-based lines where each occurrence of sub starts.
func matchLines(s, sub string) []string {
	var out []string
	off := 0
	for {
		i := strings.Index(s[off:], sub)
		if i < 0 || sub == "" {
			return out
		}
		out = append(out, fmt.Sprint(strings.Count(s[:off+i], "\n")+1))
		off += i + 1
	}
}

// NearestLines finds the run of lines of content most like search (as
// aider does for a SEARCH block that does not match) and returns it with
// its line range, so the model can quote the file exactly next time.
func NearestLines(content, search string) string {
	lines := strings.Split(content, "\n")
	want := strings.Split(strings.TrimRight(search, "\n"), "\n")
	n := len(want)
	if n == 0 || len(lines) == 0 {
		return ""
	}
	if n > len(lines) {
		n = len(lines)
	}
	wantTrim := make([]string, len(want))
	wantGrams := make([]map[string]int, len(want))
	for i, w := range want {
		wantTrim[i] = strings.TrimSpace(w)
		wantGrams[i] = bigrams(wantTrim[i])
	}
	gramCache := make([]map[string]int, len(lines))
	best, bestAt := -1.0, 0
	for start := 0; start+n <= len(lines); start++ {
		score := 0.0
		for j := 0; j < n && j < len(want); j++ {
			l := strings.TrimSpace(lines[start+j])
			if l == wantTrim[j] {
				score++
				continue
			}
			if gramCache[start+j] == nil {
				gramCache[start+j] = bigrams(l)
			}
			score += dice(gramCache[start+j], wantGrams[j])
		}
		if score > best {
			best, bestAt = score, start
		}
	}
	if best <= 0 {
		return ""
	}
	return fmt.Sprintf("lines %d-%d:\n%s", bestAt+1, bestAt+n, strings.Join(lines[bestAt:bestAt+n], "\n"))
}

func bigrams(s string) map[string]int {
	r := []rune(s)
	m := make(map[string]int, len(r))
	for i := 0; i+1 < len(r); i++ {
		m[string(r[i:i+2])]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two bigram multisets.
func dice(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for g, c := range a {
		na += c
		common += min(c, b[g])
	}
	for _, c := range b {
		nb += c
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}

// EditFailure is the attempt failure for problems applying an answer; it
// costs no toolchain run.
func EditFailure(probs []EditProblem) *attemptFailure {
	f := &attemptFailure{Summary: fmt.Sprintf("%d change(s) of the answer could not be applied; nothing was applied", len(probs))}
	var b strings.Builder
	for _, p := range probs {
		fmt.Fprintf(&b, "- %s: %s\n", p.Path, p.Message)
		f.Items = append(f.Items, feedbackItem{Artifact: p.Path, Severity: domain.SeverityBlocking, Category: "edit_not_applied", Message: p.Message})
		if p.Nearest != "" {
			fmt.Fprintf(&b, "  The closest text in %s is at %s\n", p.Path, indent(p.Nearest))
		}
	}
	f.Edits = b.String()
	return f
}

func indent(s string) string {
	return strings.ReplaceAll(s, "\n", "\n    ")
}
