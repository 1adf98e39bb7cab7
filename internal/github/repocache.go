package github

import (
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// repoInfoTTL bounds how long a repository's metadata is remembered, so a
// long-running server notices a renamed default branch.
const repoInfoTTL = 10 * time.Minute

// repoCacheSize bounds how many repositories' metadata one client keeps
// (an installation client of a server may see many).
const repoCacheSize = 1024

// repoCache remembers GetRepo answers per repository. It is safe for
// concurrent use.
type repoCache struct {
	items *expirable.LRU[Repo, RepoInfo]
}

// newRepoCache remembers up to size repositories, each for ttl (one
// cleanup goroutine for the life of the process, as for newFileCache).
func newRepoCache(size int, ttl time.Duration) repoCache {
	return repoCache{items: expirable.NewLRU[Repo, RepoInfo](size, nil, ttl)}
}

func (c repoCache) get(r Repo) (RepoInfo, bool) { return c.items.Get(r) }

func (c repoCache) put(r Repo, info RepoInfo) { c.items.Add(r, info) }
