package githubsim

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const docsURL = "https://docs.github.com/rest"

// recorder buffers a response so the middleware can add ETag and rate-limit
// headers, or turn it into a 304, after the handler ran.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}, status: http.StatusOK} }

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

func (r *recorder) flush(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	if r.status != http.StatusNotModified && r.status != http.StatusNoContent {
		_, _ = w.Write(r.body.Bytes())
	}
}

func etagOf(body []byte) string {
	sum := sha1.Sum(body)
	return `W/"` + hex.EncodeToString(sum[:]) + `"`
}

func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	norm := func(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "W/") }
	for _, candidate := range strings.Split(header, ",") {
		if c := norm(candidate); c == "*" || c == norm(etag) {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"message":"simulator encoding error"}`)
	}
	_, _ = w.Write(b)
}

func writeMessage(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": docsURL, "status": strconv.Itoa(status)})
}

func writeNotFound(w http.ResponseWriter) { writeMessage(w, http.StatusNotFound, "Not Found") }

// fieldError is one entry of a 422 "Validation Failed" errors array.
type fieldError struct {
	Resource string `json:"resource,omitempty"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

func writeValidation(w http.ResponseWriter, errs ...fieldError) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed", "errors": errs, "documentation_url": docsURL, "status": "422",
	})
}

// call carries one request's context into a handler that runs under s.mu.
type call struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	repo  *repo
	actor string
	now   time.Time
	base  string // e.g. http://127.0.0.1:1234/api/v3
}

func (s *Server) newCall(w http.ResponseWriter, r *http.Request) *call {
	return &call{s: s, w: w, r: r, actor: s.actorFor(r), now: s.now().UTC(), base: "http://" + r.Host + "/api/v3"}
}

// repoHandler locks the state, resolves {owner}/{repo} and runs fn.
func (s *Server) repoHandler(fn func(*call)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.newCall(w, r)
		rp, ok := s.repos[repoKey(r.PathValue("owner"), r.PathValue("repo"))]
		if !ok {
			writeNotFound(w)
			return
		}
		c.repo = rp
		s.userLocked(c.actor)
		if !c.checkGrant() || c.movedIssue() {
			return
		}
		fn(c)
	}
}

func (s *Server) issuesTwoSegments(sub map[string]func(*call), comment func(*call)) func(*call) {
	return func(c *call) {
		a, b := c.r.PathValue("a"), c.r.PathValue("b")
		if a == "comments" {
			c.r.SetPathValue("id", b)
			comment(c)
			return
		}
		fn, ok := sub[b]
		if !ok {
			writeNotFound(c.w)
			return
		}
		c.r.SetPathValue("number", a)
		fn(c)
	}
}

func (c *call) json(status int, v any)         { writeJSON(c.w, status, v) }
func (c *call) message(status int, msg string) { writeMessage(c.w, status, msg) }
func (c *call) notFound()                      { writeNotFound(c.w) }
func (c *call) invalid(errs ...fieldError)     { writeValidation(c.w, errs...) }

// decode reads the JSON body into v, answering 400 on malformed JSON
// and, as GitHub does for a body its schema refuses, 422 "Invalid
// request" on a field of the wrong type.
func (c *call) decode(v any) bool {
	raw, err := io.ReadAll(c.r.Body)
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &typeErr) && typeErr.Field != "":
		c.message(http.StatusUnprocessableEntity, fmt.Sprintf("Invalid request.\n\nFor 'properties/%s', %s is not %s.",
			typeErr.Field, fieldValue(raw, typeErr.Field, typeErr.Value), article(typeErr.Type.Kind().String())))
	default:
		c.message(http.StatusBadRequest, "Problems parsing JSON")
	}
	return false
}

// fieldValue is the JSON text of a top-level field of body, as GitHub
// quotes it in a schema error (def when it cannot be found).
func fieldValue(body []byte, field, def string) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return def
	}
	if v, ok := top[field]; ok {
		return string(v)
	}
	return def
}

// missingField answers 422 as GitHub does for a body without a field its
// schema requires.
func (c *call) missingField(name string) {
	c.message(http.StatusUnprocessableEntity, fmt.Sprintf("Invalid request.\n\n%q wasn't supplied.", name))
}

// article names a Go kind as GitHub's schema errors name JSON types.
func article(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a " + kind
}

func (c *call) intPath(name string) (int, bool) {
	n, err := strconv.Atoi(c.r.PathValue(name))
	if err != nil || n <= 0 {
		c.notFound()
		return 0, false
	}
	return n, true
}

// paginate applies page/per_page to n items, sets the RFC 5988 Link header
// and returns the [lo, hi) slice bounds.
func (c *call) paginate(n int) (int, int) {
	q := c.r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	page, err := strconv.Atoi(q.Get("page"))
	if err != nil || page <= 0 {
		page = 1
	}
	last := (n + per - 1) / per
	if last < 1 {
		last = 1
	}
	link := func(p int, rel string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(per))
		u := url.URL{Scheme: "http", Host: c.r.Host, Path: originalPath(c.r), RawQuery: v.Encode()}
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(min(page-1, last), "prev"))
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo := min((page-1)*per, n)
	return lo, min(lo+per, n)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func tsOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return ts(t)
}

func itoa(i int) string { return strconv.Itoa(i) }

func originalPath(r *http.Request) string {
	if p, ok := r.Context().Value(origPathKey{}).(string); ok {
		return p
	}
	return r.URL.Path
}
