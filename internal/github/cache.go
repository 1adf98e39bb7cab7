package github

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
)

// CacheHeader is set on responses served from the ETag cache after a 304.
const CacheHeader = "X-Cogworks-Cache"

// maxCachedBody bounds the size of one cached response body.
const maxCachedBody = 4 << 20

// etagCache makes GETs conditional: it remembers 200 responses that carry
// an ETag, keyed by URL, Accept header and a hash of the credentials, sends
// If-None-Match on the next GET of the same key, and serves the remembered
// body when GitHub answers 304 (which does not count against the quota).
// It holds at most size entries, evicting the least recently used; a
// size of 0 or less turns it off.
type etagCache struct {
	next    http.RoundTripper
	entries *lru.Cache[string, *cacheEntry] // nil: caching off
}

type cacheEntry struct {
	key    string
	etag   string
	status int
	header http.Header
	body   []byte
}

func newETagCache(next http.RoundTripper, size int) *etagCache {
	c := &etagCache{next: next}
	// lru.New refuses only a size below 1, which means no cache here
	// (and it returns a cache that is unusable then, not nil).
	if entries, err := lru.New[string, *cacheEntry](size); err == nil {
		c.entries = entries
	}
	return c
}

func (c *etagCache) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || c.entries == nil ||
		req.Header.Get("If-None-Match") != "" || req.Header.Get("Range") != "" {
		return c.next.RoundTrip(req)
	}
	key := cacheKey(req)
	cached := c.lookup(key)
	send := req
	if cached != nil {
		send = req.Clone(req.Context())
		send.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := c.next.RoundTrip(send)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		discard(resp)
		return cached.response(req, resp.Header), nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
		_ = resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", req.Method, req.URL.Path, err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if len(body) <= maxCachedBody {
			c.store(&cacheEntry{key: key, etag: resp.Header.Get("ETag"), status: resp.StatusCode,
				header: resp.Header.Clone(), body: body})
		}
	}
	return resp, nil
}

// cacheKey identifies a representation for a caller. The credentials are
// hashed so the cache never holds token text.
func cacheKey(req *http.Request) string {
	auth := sha256.Sum256([]byte(req.Header.Get("Authorization")))
	return strings.Join([]string{req.URL.String(), req.Header.Get("Accept"), hex.EncodeToString(auth[:8])}, "\x00")
}

func (c *etagCache) lookup(key string) *cacheEntry {
	e, _ := c.entries.Get(key)
	return e
}

func (c *etagCache) store(e *cacheEntry) {
	c.entries.Add(e.key, e)
}

// response rebuilds the cached answer, taking fresh rate-limit headers
// from the 304.
func (e *cacheEntry) response(req *http.Request, fresh http.Header) *http.Response {
	h := e.header.Clone()
	for k, v := range fresh {
		if strings.HasPrefix(k, "X-Ratelimit-") {
			h[k] = v
		}
	}
	h.Set(CacheHeader, "revalidated")
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", e.status, http.StatusText(e.status)),
		StatusCode:    e.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(e.body)),
		ContentLength: int64(len(e.body)),
		Request:       req,
	}
}
