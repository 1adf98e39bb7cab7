package github

import (
	"slices"
	"sync"
)

// maxCachedTrees bounds the trees a long-running server remembers; a
// recursive tree of a large repository is a few megabytes.
const maxCachedTrees = 64

// treeCache remembers GetTree answers. A tree's SHA names its content, so
// an answer never goes stale: the stages of a run list the same branch
// trees step after step (the interfaces branch, the default branch), and
// each listing cost a request even when GitHub answered 304.
type treeCache struct {
	mu    sync.Mutex
	items map[treeKey][]TreeEntry
}

type treeKey struct {
	repo      Repo
	sha       string
	recursive bool
}

func (c *treeCache) get(k treeKey) ([]TreeEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	return slices.Clone(e), ok
}

func (c *treeCache) put(k treeKey, entries []TreeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[treeKey][]TreeEntry{}
	}
	if len(c.items) >= maxCachedTrees {
		clear(c.items)
	}
	c.items[k] = slices.Clone(entries)
}
