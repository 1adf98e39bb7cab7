package github

import "time"

// fileTTL bounds how long a file read at a branch is remembered. Within
// one run the stages read the same files (the spec, the interfaces, the
// sub-work-items' outputs) step after step; a file at a branch this client
// wrote is forgotten at once, and someone else's push is seen within
// fileTTL at the latest.
const fileTTL = 2 * time.Minute

// fileCacheSize bounds the memory of a long-running server: the least
// recently used file is forgotten first.
const fileCacheSize = 4096

// fileCache remembers GetFile answers per repository, ref and path. It is
// safe for concurrent use. Contents are copied in and out so that a
// caller editing its slice cannot change what the next caller reads.
type fileCache struct {
	items ttlCache[fileKey, []byte]
}

type fileKey struct {
	repo      Repo
	ref, path string
}

// newFileCache remembers up to size files, each for ttl.
func newFileCache(size int, ttl time.Duration) fileCache {
	return fileCache{items: newTTLCache[fileKey, []byte](size, ttl)}
}

func (c fileCache) get(k fileKey) ([]byte, bool) {
	b, ok := c.items.get(k)
	if !ok {
		return nil, false
	}
	return append([]byte(nil), b...), true
}

func (c fileCache) put(k fileKey, content []byte) {
	c.items.add(k, append([]byte(nil), content...))
}

// forget drops every file remembered at ref, after this client moved it.
func (c fileCache) forget(repo Repo, ref string) {
	for _, k := range c.items.keys() {
		if k.repo == repo && k.ref == ref {
			c.items.remove(k)
		}
	}
}
