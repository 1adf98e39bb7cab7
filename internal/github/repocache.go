package github

import "time"

// repoInfoTTL bounds how long a repository's metadata is remembered, so a
// long-running server notices a renamed default branch.
const repoInfoTTL = 10 * time.Minute

// repoCacheSize bounds how many repositories' metadata one client keeps
// (an installation client of a server may see many).
const repoCacheSize = 1024

// repoCache remembers GetRepo answers per repository. It is safe for
// concurrent use.
type repoCache struct {
	items ttlCache[Repo, RepoInfo]
}

// newRepoCache remembers up to size repositories, each for ttl.
func newRepoCache(size int, ttl time.Duration) repoCache {
	return repoCache{items: newTTLCache[Repo, RepoInfo](size, ttl)}
}

func (c repoCache) get(r Repo) (RepoInfo, bool) { return c.items.get(r) }

func (c repoCache) put(r Repo, info RepoInfo) { c.items.add(r, info) }
