package githubsim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultActor is the login used for requests whose Authorization token is
// unknown (or absent) until SetActor changes it.
const DefaultActor = "cogworks[bot]"

// Option configures a Server.
type Option func(*Server)

// WithClock makes the server read the current time from now instead of
// time.Now. It drives every timestamp, commit date and rate-limit window.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.now = now }
}

// WithResponseLog makes the request log keep every response body too
// (RequestLog.Response), for tests that check what the simulator answered.
func WithResponseLog() Option {
	return func(s *Server) { s.logResponses = true }
}

// WithObserver makes the server call observe with every request it
// logs, response body included, after serving it (concurrently, when
// requests are): unlike Requests, nothing a test does to the log
// (ResetRequests) hides a request from it.
func WithObserver(observe func(RequestLog)) Option {
	return func(s *Server) { s.observe = observe }
}

// WithRateLimit sets the core rate-limit budget per window (default 5000).
func WithRateLimit(limit int) Option {
	return func(s *Server) { s.limits[resourceCore].limit = limit }
}

// WithSearchRateLimit sets the search rate-limit budget per window (default 30).
func WithSearchRateLimit(limit int) Option {
	return func(s *Server) { s.limits[resourceSearch].limit = limit }
}

// WithRateLimitWindow sets how long a rate-limit window lasts (default one hour).
func WithRateLimitWindow(d time.Duration) Option {
	return func(s *Server) { s.window = d }
}

// Server is a stateful in-memory GitHub REST API. It is safe for concurrent use.
type Server struct {
	now    func() time.Time
	window time.Duration
	mux    *http.ServeMux

	mu       sync.Mutex // guards all simulated GitHub state below
	repos    map[string]*repo
	users    map[string]*user
	tokens   map[string]string
	actor    string
	nextID   int64
	issueIDs map[int64]issueKey
	apps     map[int64]*app
	// scopes are the OAuth scopes of classic tokens (AddTokenScopes).
	scopes        map[string][]string
	installations map[int64]*installation
	grants        map[string]*grant // token permissions (tokens.go)

	metaMu   sync.Mutex // guards request log, faults and rate limits
	requests []RequestLog
	faults   []*activeFault
	limits   map[string]*bucket
	reqSeq   int64
	relaxed  map[Rule]bool // rules turned off (strict.go)
	// writes holds each token's content-creating requests of the last
	// hour (secondary.go).
	writes map[string][]time.Time
	// incompleteSearches is how many searches still time out.
	incompleteSearches int
	// enterprise is the GHES version served ("" for github.com).
	enterprise string
	// logResponses keeps response bodies in the request log.
	logResponses bool
	// observe sees every logged request (WithObserver).
	observe func(RequestLog)

	// routeTable lists the registered routes (Routes).
	routeTable []Route

	httpSrv *http.Server
}

type issueKey struct {
	repo   string
	number int
}

// New builds an empty simulator.
func New(opts ...Option) *Server {
	s := &Server{
		now:      time.Now,
		window:   time.Hour,
		repos:    map[string]*repo{},
		users:    map[string]*user{},
		tokens:   map[string]string{},
		actor:    DefaultActor,
		nextID:   1000,
		issueIDs: map[int64]issueKey{},
		relaxed:  map[Rule]bool{},
		limits: map[string]*bucket{
			resourceCore:   {limit: 5000},
			resourceSearch: {limit: 30},
		},
	}
	for _, o := range opts {
		o(s)
	}
	s.mux = http.NewServeMux()
	s.routes()
	return s
}

// Handler returns the HTTP handler serving both /api/v3/... and bare paths.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// Listen serves the simulator on addr (e.g. "127.0.0.1:8080", or
// "127.0.0.1:0" for any free loopback port) in the background and returns
// its base URL (no trailing slash); use URL+"/api/v3/" as the enterprise
// base URL. Close stops it. (It is a plain net/http server, not httptest:
// the production binary serves it for `cogworks demo`.)
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("githubsim listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.httpSrv = srv
	// Serve returns ErrServerClosed on Close; there is no caller to report to.
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// Close stops the server Listen started, giving requests in flight a
// second to finish. Then it closes what is left: http.Server counts a
// connection that never sent a request as busy for five seconds, and a
// client's spare connection must not hold a test's cleanup that long.
func (s *Server) Close() {
	if s.httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.httpSrv.Shutdown(ctx); err != nil {
			_ = s.httpSrv.Close()
		}
		s.httpSrv = nil
	}
}

// AddToken maps an Authorization token (as sent with "token X" or
// "Bearer X") to the login that acts for requests carrying it.
func (s *Server) AddToken(token, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token] = login
	s.userLocked(login)
}

// SetActor sets the login acting for requests with an unknown or absent token.
func (s *Server) SetActor(login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.actor = login
}

func (s *Server) actorFor(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	for _, p := range []string{"token ", "Token ", "Bearer ", "bearer "} {
		if tok, ok := strings.CutPrefix(auth, p); ok {
			if login, ok := s.tokens[strings.TrimSpace(tok)]; ok {
				return login
			}
		}
	}
	return s.actor
}

// origPathKey carries the request path before prefix stripping, so Link
// headers point back at the same API root the client used.
type origPathKey struct{}

// stripPrefix maps /api/v3/x and /api/uploads/x to /x.
func stripPrefix(p string) string {
	for _, pre := range []string{"/api/v3", "/api/uploads"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && (rest == "" || rest[0] == '/') {
			if rest == "" {
				return "/"
			}
			return rest
		}
	}
	return p
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	orig := r.URL.Path
	r2 := r.Clone(context.WithValue(r.Context(), origPathKey{}, orig))
	r2.URL.Path = stripPrefix(r.URL.Path)
	if r.URL.RawPath != "" {
		r2.URL.RawPath = stripPrefix(r.URL.RawPath)
	}
	path := r2.URL.Path
	resource := resourceCore
	if strings.HasPrefix(path, "/search/") {
		resource = resourceSearch
	}
	var body []byte
	if r.Body != nil {
		// Read up front so the log keeps what was sent; handlers read the copy.
		b, err := io.ReadAll(r.Body)
		if err != nil {
			writeMessage(w, http.StatusBadRequest, "Problems reading the request body")
			return
		}
		if len(b) > 0 {
			body = b
		}
		r2.Body = io.NopCloser(bytes.NewReader(b))
	}
	rec := newRecorder()
	start := s.now()

	status, faulted := s.dispatch(rec, r2, resource)

	s.metaMu.Lock()
	s.reqSeq++
	entry := RequestLog{Method: r.Method, Path: path, Query: r.URL.RawQuery, Body: body, Status: status, Time: start, Faulted: faulted}
	if (s.logResponses || s.observe != nil) && status != http.StatusNotModified && status != http.StatusNoContent {
		entry.Response = bytes.Clone(rec.body.Bytes())
	}
	s.requests = append(s.requests, entry)
	observe := s.observe
	s.metaMu.Unlock()
	if observe != nil {
		observe(entry)
	}
	rec.flush(w)
}

// dispatch runs faults, rate limits, routing and ETag handling into rec and
// returns the final status code, and whether an injected fault answered.
func (s *Server) dispatch(rec *recorder, r *http.Request, resource string) (int, bool) {
	rec.Header().Set("X-GitHub-Request-Id", s.requestID())
	rec.Header().Set("X-GitHub-Api-Version-Selected", "2022-11-28")
	rec.Header().Set("X-GitHub-Media-Type", "github.v3; format=json")
	s.scopesHeader(rec.Header(), r)

	if f, ok := s.matchFault(r); ok {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
			}
		}
		if f.Status != 0 {
			s.rateHeaders(rec.Header(), resource, false)
			return f.write(rec), true
		}
	}
	resource = s.rateResource(r, resource)
	if limited, wait := s.secondaryLimited(r); limited {
		s.rateHeaders(rec.Header(), resource, false)
		return writeSecondaryLimit(rec, wait), false
	}
	if exhausted := s.rateExhausted(resource); exhausted {
		s.rateHeaders(rec.Header(), resource, false)
		writeJSON(rec, http.StatusForbidden, map[string]any{
			"message":           "API rate limit exceeded for user ID 1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)",
			"documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting",
		})
		return http.StatusForbidden, false
	}

	if s.enterprise != "" {
		rec.Header().Set("X-GitHub-Enterprise-Version", s.enterprise)
	}
	// Handler only finds the pattern; ServeHTTP also sets path values.
	if _, pattern := s.mux.Handler(r); pattern == "" || emptyRest(pattern, r.URL.Path) || s.enterpriseLacks(r.URL.Path) {
		writeNotFound(rec)
	} else {
		s.mux.ServeHTTP(rec, r)
	}

	if r.Method == http.MethodGet && rec.status == http.StatusOK {
		etag := etagOf(rec.body.Bytes())
		rec.Header().Set("ETag", etag)
		rec.Header().Set("Cache-Control", "private, max-age=60, s-maxage=60")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			s.rateHeaders(rec.Header(), resource, false)
			rec.body.Reset()
			rec.status = http.StatusNotModified
			return rec.status, false
		}
	}
	// Like GitHub, GET /rate_limit does not count against the limit, nor
	// do archive downloads (codeload is not the API).
	s.rateHeaders(rec.Header(), resource, r.URL.Path != "/rate_limit" && !strings.HasPrefix(r.URL.Path, codeloadPrefix))
	return rec.status, false
}

func (s *Server) requestID() string {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	return fmt.Sprintf("SIM0:%04X:%06X", s.reqSeq%0xFFFF, s.reqSeq+1)
}

// emptyRest reports whether path matched a pattern ending in a "{x...}"
// wildcard with nothing for it (".../git/refs" or ".../git/refs/", which
// net/http would redirect or serve): GitHub has no such operation and
// answers 404. The contents API is the exception: an empty path is the
// repository's root directory.
func emptyRest(pattern, path string) bool {
	_, p, _ := strings.Cut(pattern, " ")
	if !strings.HasSuffix(p, "...}") || strings.HasSuffix(p, "{path...}") {
		return false
	}
	// The wildcard starts after the pattern's last slash.
	rest := path
	for range strings.Count(p, "/") {
		_, after, ok := strings.Cut(rest, "/")
		if !ok {
			return true
		}
		rest = after
	}
	return rest == ""
}
