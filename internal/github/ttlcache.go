package github

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// ttlCache is a size-bounded LRU whose entries expire ttl after they were
// added, checked when read. golang-lru's expirable.LRU does the same but
// starts a cleanup goroutine that never stops (v2.0.7 has no Close), so
// every Client made and dropped (an App installation forgotten, a client
// per repository of `process-all --org`) left two goroutines and its
// caches behind for the life of the process. An expired entry here holds
// its slot until it is read or evicted, which the size bounds.
type ttlCache[K comparable, V any] struct {
	items *lru.Cache[K, ttlEntry[V]]
	ttl   time.Duration
	now   func() time.Time
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// newTTLCache remembers up to size entries (at least one), each for ttl.
func newTTLCache[K comparable, V any](size int, ttl time.Duration) ttlCache[K, V] {
	items, err := lru.New[K, ttlEntry[V]](max(size, 1))
	if err != nil {
		// lru.New fails only for a size below one, excluded above.
		items, _ = lru.New[K, ttlEntry[V]](1)
	}
	return ttlCache[K, V]{items: items, ttl: ttl, now: time.Now}
}

func (c ttlCache[K, V]) get(k K) (V, bool) {
	e, ok := c.items.Get(k)
	if !ok {
		var zero V
		return zero, false
	}
	if !c.now().Before(e.expires) {
		c.items.Remove(k)
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c ttlCache[K, V]) add(k K, v V) {
	c.items.Add(k, ttlEntry[V]{value: v, expires: c.now().Add(c.ttl)})
}

func (c ttlCache[K, V]) remove(k K) { c.items.Remove(k) }

func (c ttlCache[K, V]) keys() []K { return c.items.Keys() }

func (c ttlCache[K, V]) len() int { return c.items.Len() }
