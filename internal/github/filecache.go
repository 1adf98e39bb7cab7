package github

import (
	"sync"
	"time"
)

// fileTTL bounds how long a file read at a branch is remembered. Within
// one run the stages read the same files (the spec, the interfaces, the
// sub-work-items' outputs) step after step; a file at a branch this client
// wrote is forgotten at once, and someone else's push is seen within
// fileTTL at the latest.
const fileTTL = 2 * time.Minute

// fileCache remembers GetFile answers per repository, ref and path.
type fileCache struct {
	mu    sync.Mutex
	items map[fileKey]fileEntry
	now   func() time.Time
}

type fileKey struct {
	repo      Repo
	ref, path string
}

type fileEntry struct {
	content []byte
	at      time.Time
}

func (c *fileCache) get(k fileKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok || c.clock().Sub(e.at) > fileTTL {
		return nil, false
	}
	return append([]byte(nil), e.content...), true
}

func (c *fileCache) put(k fileKey, content []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[fileKey]fileEntry{}
	}
	if len(c.items) > 4096 { // bound the memory of a long-running server
		clear(c.items)
	}
	c.items[k] = fileEntry{content: append([]byte(nil), content...), at: c.clock()}
}

// forget drops every file remembered at ref, after this client moved it.
func (c *fileCache) forget(repo Repo, ref string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.items {
		if k.repo == repo && k.ref == ref {
			delete(c.items, k)
		}
	}
}

func (c *fileCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}
