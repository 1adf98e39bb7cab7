package github

import (
	"sync"
	"time"
)

// repoInfoTTL bounds how long a repository's metadata is remembered, so a
// long-running server notices a renamed default branch.
const repoInfoTTL = 10 * time.Minute

// repoCache remembers GetRepo answers per repository.
type repoCache struct {
	mu    sync.Mutex
	items map[Repo]repoEntry
	now   func() time.Time
}

type repoEntry struct {
	info RepoInfo
	at   time.Time
}

func (c *repoCache) get(r Repo) (RepoInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[r]
	if !ok || c.clock().Sub(e.at) > repoInfoTTL {
		return RepoInfo{}, false
	}
	return e.info, true
}

func (c *repoCache) put(r Repo, info RepoInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[Repo]repoEntry{}
	}
	c.items[r] = repoEntry{info: info, at: c.clock()}
}

func (c *repoCache) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}
