// Reading the design a plan was made from, as it reads now: the
// specification and interface files on their branches, and on the default
// branch once a maintainer merged or edited them there.

package planning

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// DefaultBranchReader is what the watch of the default branch asks: its
// head, and what it changed since the commit last checked.
type DefaultBranchReader interface {
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
	Compare(ctx context.Context, repo github.Repo, base, head string) (github.Comparison, error)
}

// Design implements engine.DesignWatcher. Each design file is read where
// the work item keeps it: the specification on the default branch when
// the architecture gate was passed by merging the spec PR, else on the
// spec branch (a push to the open spec PR is an amendment), and on the
// default branch once that branch is gone; each interface file on the
// interface branch, else on the default branch. That is one contents read
// per file, which the client's file cache shares with the stages that
// read the same files in the same run.
//
// The default branch is watched too, for a spec or interface PR merged
// after a label approval and edited there later: one compare from the
// default branch's commit the last basis was checked against
// (DesignBasis.Base) says which design files it changed since. A file it
// changed is read there, at the compared head, and from then on the
// default branch's version is the one watched (DesignFile.OnDefault),
// taken from the last basis while the compare shows no change, so it
// costs no read. The first basis pins the default branch's head (one
// request).
func (r Replanner) Design(ctx context.Context, in engine.StageInput) (pipeline.DesignBasis, error) {
	last := in.Snapshot.Amended
	if last == nil {
		last = in.Snapshot.Design
	}
	paths := designPaths(in.Snapshot)
	var w defaultWatch
	if len(paths) > 0 {
		// An item without design files (a bug fix) has nothing to watch.
		var err error
		if w, err = r.watchDefault(ctx, in, last); err != nil {
			return pipeline.DesignBasis{}, err
		}
	}
	files, onDefault := map[string]string{}, map[string]bool{}
	for _, d := range paths {
		var prev pipeline.DesignFile
		if last != nil {
			prev, _ = last.File(d.path)
		}
		switch {
		case w.head != "" && (w.all || w.touched[d.path]):
			c, found, err := r.read(ctx, in.Repo, d.path, w.head)
			if err != nil {
				return pipeline.DesignBasis{}, err
			}
			if found {
				files[d.path], onDefault[d.path] = c, true
				continue
			}
		case prev.OnDefault && w.head != "":
			// Unchanged on the default branch since the last check.
			c, found := prev.Text, !last.Omitted
			if !found {
				// The last basis was too long to keep its text.
				var err error
				if c, found, err = r.read(ctx, in.Repo, d.path, w.base); err != nil {
					return pipeline.DesignBasis{}, err
				}
			}
			if found {
				files[d.path], onDefault[d.path] = c, true
				continue
			}
		}
		c, err := r.readFirst(ctx, in.Repo, d.path, d.refs...)
		if err != nil {
			return pipeline.DesignBasis{}, err
		}
		files[d.path] = c
	}
	b := pipeline.NewDesignBasis(files, r.now())
	b.OnDefaultBranch(onDefault)
	b.Base, b.Branch = w.head, w.branch
	return b, nil
}

// designFile is a design file and the refs it is read at, in order (""
// is the default branch).
type designFile struct {
	path string
	refs []string
}

// designPaths are the design files of snap's plan: the specification
// (unless architecture was skipped) and each declared interface file.
func designPaths(snap *pipeline.Snapshot) []designFile {
	var out []designFile
	if !snap.Skips(pipeline.StageArchitecture) {
		branch := snap.Artifacts.SpecBranch
		if branch == "" {
			branch = stagekit.SpecBranch(snap.WorkItem)
		}
		refs := []string{branch, ""}
		if mergedAtGate(snap, pipeline.StageArchitecture) {
			refs = []string{"", branch}
		}
		out = append(out, designFile{path: stagekit.SpecPath(snap.WorkItem), refs: refs})
	}
	branch := snap.Artifacts.InterfaceBranch
	for _, decl := range snap.Interfaces {
		if decl.File == "" || branch == "" || slices.ContainsFunc(out, func(d designFile) bool { return d.path == decl.File }) {
			continue
		}
		out = append(out, designFile{path: decl.File, refs: []string{branch, ""}})
	}
	return out
}

// defaultWatch is what the default branch says about the design files:
// its name, the commit checked (head), the one checked before (base), and
// which files it changed in between (all: it cannot tell).
type defaultWatch struct {
	branch, base, head string
	touched            map[string]bool
	all                bool
}

// watchDefault compares the default branch with the commit last checked:
// one compare on the branch the last basis names. The first check, or
// one whose branch is gone (renamed) or whose commit is (a force-push),
// reads the repository and the branch's head instead. Without a
// Replanner.Default port it watches nothing (head "").
func (r Replanner) watchDefault(ctx context.Context, in engine.StageInput, last *pipeline.DesignBasis) (defaultWatch, error) {
	if r.Default == nil {
		return defaultWatch{}, nil
	}
	fresh := func(base string, all bool) (defaultWatch, error) {
		info, err := r.GitHub.GetRepo(ctx, in.Repo)
		if err != nil {
			return defaultWatch{}, fmt.Errorf("read the default branch of %s: %w", in.Repo, err)
		}
		sha, err := r.Default.GetBranchSHA(ctx, in.Repo, info.DefaultBranch)
		if err != nil {
			return defaultWatch{}, fmt.Errorf("read the head of %s's default branch: %w", in.Repo, err)
		}
		if base == "" {
			base = sha
		}
		return defaultWatch{branch: info.DefaultBranch, base: base, head: sha, all: all}, nil
	}
	if last == nil || last.Base == "" || last.Branch == "" {
		// The first check: nothing to compare with, the head is pinned.
		return fresh("", false)
	}
	head := last.Branch
	if strings.Contains(head, "/") {
		// A compare takes a branch name of one path segment only.
		sha, err := r.Default.GetBranchSHA(ctx, in.Repo, head)
		if errors.Is(err, github.ErrNotFound) {
			return fresh(last.Base, true)
		}
		if err != nil {
			return defaultWatch{}, fmt.Errorf("read the head of %s's default branch: %w", in.Repo, err)
		}
		head = sha
	}
	cmp, err := r.Default.Compare(ctx, in.Repo, last.Base, head)
	if errors.Is(err, github.ErrNotFound) || errors.Is(err, github.ErrCompareTooLarge) {
		// Too much changed to list, or nothing to compare: read every
		// design file on the default branch.
		return fresh(last.Base, true)
	}
	if err != nil {
		return defaultWatch{}, fmt.Errorf("compare %s's default branch with %s: %w", in.Repo, last.Base, err)
	}
	w := defaultWatch{branch: last.Branch, base: last.Base, head: last.Base, touched: map[string]bool{}}
	if n := len(cmp.Commits); n > 0 {
		w.head = cmp.Commits[n-1].SHA
	}
	for _, f := range cmp.Files {
		w.touched[f.Path] = true
		if f.PreviousPath != "" {
			w.touched[f.PreviousPath] = true
		}
	}
	return w, nil
}

func (r Replanner) now() time.Time {
	if r.Deps.Clock != nil {
		return r.Deps.Clock()
	}
	return time.Now()
}

// readDesign reads the design files at their own refs, the default
// branch's watch aside.
func (r Replanner) readDesign(ctx context.Context, in engine.StageInput) (map[string]string, error) {
	files := map[string]string{}
	for _, d := range designPaths(in.Snapshot) {
		c, err := r.readFirst(ctx, in.Repo, d.path, d.refs...)
		if err != nil {
			return nil, err
		}
		files[d.path] = c
	}
	return files, nil
}

// mergedAtGate reports that the gate after stage was passed by merging
// its PR.
func mergedAtGate(snap *pipeline.Snapshot, stage pipeline.Stage) bool {
	return slices.ContainsFunc(snap.Approvals, func(a pipeline.Approval) bool {
		return a.Stage == stage && a.Via == pipeline.ViaMerge && a.Refused == ""
	})
}

// readFirst reads path at the first ref that has it ("" is the default
// branch); "" when none does.
func (r Replanner) readFirst(ctx context.Context, repo github.Repo, path string, refs ...string) (string, error) {
	for _, ref := range refs {
		c, found, err := r.read(ctx, repo, path, ref)
		if err != nil || found {
			return c, err
		}
	}
	return "", nil
}

// read reads path at ref; found false when it is not there.
func (r Replanner) read(ctx context.Context, repo github.Repo, path, ref string) (string, bool, error) {
	b, err := r.GitHub.GetFile(ctx, repo, path, ref)
	if errors.Is(err, github.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the design file %s: %w", path, err)
	}
	return string(b), true, nil
}
