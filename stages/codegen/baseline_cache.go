package codegen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/domain"
)

// BaselineCache keeps the test results of base trees (the SWI's base
// without the generated change), keyed by repository, ref, the content of
// the base's overlay files and the package set, so the base runs once
// however many attempts fail. It is safe for concurrent use; the zero
// value is ready.
type BaselineCache struct {
	mu      sync.Mutex
	entries map[string]domain.SimulateResult
}

// get returns the cached result of the base tree named key.
func (c *BaselineCache) get(key string) (domain.SimulateResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.entries[key]
	return r, ok
}

// put records the result of the base tree named key.
func (c *BaselineCache) put(key string, r domain.SimulateResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]domain.SimulateResult{}
	}
	c.entries[key] = r
}

// baselineKey names a base tree and test selection: the workspace's
// repository and ref, every overlay artifact (path and content hash), the
// packages and the changed paths.
func baselineKey(req domain.Request, p domain.SimulateParams) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", req.Repository.Path, req.Repository.Ref)
	arts := slices.Clone(req.Artifacts)
	slices.SortFunc(arts, func(a, b domain.Artifact) int { return strings.Compare(a.Path, b.Path) })
	for _, a := range arts {
		sum := sha256.Sum256([]byte(a.Content))
		fmt.Fprintf(h, "%s\x00%t\x00%x\x00", a.Path, a.Delete, sum)
	}
	fmt.Fprintf(h, "%s\x00\x00%s", strings.Join(p.Packages, "\x00"), strings.Join(p.Paths, "\x00"))
	return hex.EncodeToString(h.Sum(nil))
}
