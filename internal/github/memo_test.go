package github

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFileCacheCopiesAndForgetsARef(t *testing.T) {
	t.Parallel()
	c := newFileCache(16, time.Hour)
	main := fileKey{repo: testRepo, ref: "main", path: "a.go"}
	other := fileKey{repo: testRepo, ref: "feature", path: "a.go"}
	content := []byte("package a")
	c.put(main, content)
	c.put(other, []byte("package b"))
	content[0] = 'X'
	got, ok := c.get(main)
	require.True(t, ok)
	assert.Equal(t, "package a", string(got), "the cache keeps its own copy")
	got[0] = 'Y'
	again, _ := c.get(main)
	assert.Equal(t, "package a", string(again), "a caller's edit does not reach the cache")

	c.forget(testRepo, "main")
	_, ok = c.get(main)
	assert.False(t, ok, "a ref this client moved is forgotten")
	_, ok = c.get(other)
	assert.True(t, ok, "other refs stay")
}

func TestFileCacheIsBoundedLeastRecentlyUsedFirst(t *testing.T) {
	t.Parallel()
	c := newFileCache(2, time.Hour)
	key := func(i int) fileKey { return fileKey{repo: testRepo, ref: "main", path: fmt.Sprint(i)} }
	c.put(key(0), []byte("0"))
	c.put(key(1), []byte("1"))
	_, _ = c.get(key(0))
	c.put(key(2), []byte("2"))
	_, ok := c.get(key(1))
	assert.False(t, ok, "the least recently used file is forgotten")
	for _, i := range []int{0, 2} {
		_, ok := c.get(key(i))
		assert.True(t, ok, "file %d", i)
	}
}

func TestFileAndRepoCachesExpire(t *testing.T) {
	t.Parallel()
	const ttl = time.Minute
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	files := newFileCache(16, ttl)
	repos := newRepoCache(16, ttl)
	files.items.now, repos.items.now = clock, clock
	k := fileKey{repo: testRepo, ref: "main", path: "a.go"}
	files.put(k, []byte("x"))
	repos.put(testRepo, RepoInfo{DefaultBranch: "main"})

	now = now.Add(ttl - time.Second)
	_, ok := files.get(k)
	assert.True(t, ok, "a file is remembered within the TTL")
	_, ok = repos.get(testRepo)
	assert.True(t, ok)

	now = now.Add(time.Second)
	_, ok = files.get(k)
	assert.False(t, ok, "a file is re-read after the TTL")
	_, ok = repos.get(testRepo)
	assert.False(t, ok, "a renamed default branch is noticed after the TTL")
	assert.Zero(t, files.items.len(), "an expired entry read is dropped")
}

func TestRepoCacheIsBounded(t *testing.T) {
	t.Parallel()
	c := newRepoCache(2, time.Hour)
	repo := func(i int) Repo { return Repo{Owner: "o", Name: fmt.Sprint(i)} }
	for i := range 3 {
		c.put(repo(i), RepoInfo{DefaultBranch: fmt.Sprint("b", i)})
	}
	_, ok := c.get(repo(0))
	assert.False(t, ok)
	info, ok := c.get(repo(2))
	require.True(t, ok)
	assert.Equal(t, "b2", info.DefaultBranch)
}

// TestCachesAreSafeForConcurrentUse is for -race: a Client's stages read
// and write the caches from several goroutines.
func TestCachesAreSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	files := newFileCache(64, time.Hour)
	repos := newRepoCache(64, time.Hour)
	etags := newETagCache(nil, 64)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				k := fileKey{repo: testRepo, ref: fmt.Sprint("r", g), path: fmt.Sprint(i)}
				files.put(k, []byte("x"))
				_, _ = files.get(k)
				repos.put(Repo{Owner: "o", Name: fmt.Sprint(g, "-", i)}, RepoInfo{})
				etags.store(&cacheEntry{key: fmt.Sprint(g, "-", i)})
				_ = etags.lookup(fmt.Sprint(g, "-", i))
				if i%10 == 0 {
					files.forget(testRepo, fmt.Sprint("r", g))
				}
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, files.items.len(), 64)
	assert.Equal(t, 64, repos.items.len())
	assert.Equal(t, 64, etags.entries.Len())
}
