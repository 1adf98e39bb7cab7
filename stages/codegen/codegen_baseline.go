package codegen

import (
	"context"
	"fmt"
	"maps"
)

// The baseline lives in the stage, not in the domain service: it is one
// more simulate call on the tree without the change, so every domain
// service (not only Go's) gets it with no Extension API change, and the
// stage is where "a failure the change did not cause" is decided. It runs
// only when an attempt's tests fail, at most once per base tree and
// package set (BaselineCache).

// start is the tree the SWI's branch starts from: the default branch with
// the interface and dependency files, without the SWI's own earlier output
// (a remediation may resubmit that).
func (r SWIRun) start() BaseTree {
	t := BaseTree{Repo: r.Base.Repo, Overlay: map[string]string{}}
	maps.Copy(t.Overlay, r.src.Interfaces)
	maps.Copy(t.Overlay, r.src.Deps)
	return t
}

// emptyChange fails an answer that leaves the base tree as it is (every
// file it writes already has that content, nothing deleted): committed,
// it would leave the branch equal to its base, and GitHub refuses a PR
// with no commits.
func emptyChange(ctx context.Context, base BaseTree, cs changeSet) (*attemptFailure, error) {
	if len(cs.Deleted) > 0 {
		return nil, nil
	}
	for p, content := range cs.Files {
		old, ok, err := base.read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("compare %s with the base: %w", p, err)
		}
		if !ok || old != content {
			return nil, nil
		}
	}
	return &attemptFailure{Summary: "the answer changes nothing: every file it writes already has that content on the base branch"}, nil
}
