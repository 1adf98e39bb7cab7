package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/domain"
)

// The baseline lives in the stage, not in the domain service: it is one
// more simulate call on the tree without the change, so every domain
// service (not only Go's) gets it with no Extension API change, and the
// stage is where "a failure the change did not cause" is decided. It runs
// only when an attempt's tests fail, at most once per base tree and
// package set (BaselineCache).

// BaselineCache keeps the test results of base trees (the SWI's base
// without the generated change), keyed by repository, ref, the content of
// the base's overlay files and the package set, so the base runs once
// however many attempts fail. It is safe for concurrent use; the zero
// value is ready.
type BaselineCache struct {
	mu      sync.Mutex
	entries map[string]domain.SimulateResult
}

func (c *BaselineCache) get(key string) (domain.SimulateResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.entries[key]
	return r, ok
}

func (c *BaselineCache) put(key string, r domain.SimulateResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]domain.SimulateResult{}
	}
	c.entries[key] = r
}

// baselineKey names a base tree and package set: the workspace's
// repository and ref, every overlay artifact (path and content hash) and
// the packages.
func baselineKey(req domain.Request, pkgs []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", req.Repository.Path, req.Repository.Ref)
	arts := slices.Clone(req.Artifacts)
	slices.SortFunc(arts, func(a, b domain.Artifact) int { return strings.Compare(a.Path, b.Path) })
	for _, a := range arts {
		sum := sha256.Sum256([]byte(a.Content))
		fmt.Fprintf(h, "%s\x00%t\x00%x\x00", a.Path, a.Delete, sum)
	}
	fmt.Fprintf(h, "%s", strings.Join(pkgs, "\x00"))
	return hex.EncodeToString(h.Sum(nil))
}

// start is the tree the SWI's branch starts from: the default branch with
// the interface and dependency files, without the SWI's own earlier output
// (a remediation may resubmit that).
func (r swiRun) start() baseTree {
	t := baseTree{Repo: r.base.Repo, Overlay: map[string]string{}}
	maps.Copy(t.Overlay, r.src.Interfaces)
	maps.Copy(t.Overlay, r.src.Deps)
	return t
}

// emptyChange fails an answer that leaves the base tree as it is (every
// file it writes already has that content, nothing deleted): committed,
// it would leave the branch equal to its base, and GitHub refuses a PR
// with no commits.
func emptyChange(ctx context.Context, base baseTree, cs changeSet) (*attemptFailure, error) {
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
