package githubsim

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Fault makes matching requests fail or slow down.
//
// A request matches when Method is empty or equal to its method and
// PathPattern (a regular expression, unanchored) matches its path with any
// /api/v3 prefix removed. The first matching fault applies: after sleeping
// Delay it answers Status with Body (default {"message": <status text>})
// and a Retry-After header when RetryAfter is set. Status 0 only delays and
// then serves the request normally. Count limits how many requests the
// fault affects; 0 means forever. Faulted responses still carry rate-limit
// headers but do not consume the budget and never touch state.
type Fault struct {
	Method      string
	PathPattern string
	Status      int
	Count       int
	Delay       time.Duration
	RetryAfter  string
	Body        string
}

type activeFault struct {
	Fault
	re        *regexp.Regexp
	remaining int // meaningful when Count > 0
}

// InjectFault registers f. It fails only when PathPattern does not compile.
func (s *Server) InjectFault(f Fault) error {
	re, err := regexp.Compile(f.PathPattern)
	if err != nil {
		return fmt.Errorf("githubsim fault path pattern %q: %w", f.PathPattern, err)
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	s.faults = append(s.faults, &activeFault{Fault: f, re: re, remaining: f.Count})
	return nil
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	s.faults = nil
}

func (s *Server) matchFault(r *http.Request) (Fault, bool) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	for i, f := range s.faults {
		if f.Method != "" && f.Method != r.Method || !f.re.MatchString(r.URL.Path) {
			continue
		}
		if f.Count > 0 {
			f.remaining--
			if f.remaining <= 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return f.Fault, true
	}
	return Fault{}, false
}

func (f Fault) write(w http.ResponseWriter) int {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(f.Status)
	body := f.Body
	if body == "" {
		body = fmt.Sprintf(`{"message":%q,"documentation_url":%q}`, http.StatusText(f.Status), docsURL)
	}
	_, _ = w.Write([]byte(body))
	return f.Status
}

const (
	resourceCore   = "core"
	resourceSearch = "search"
)

// bucket is one rate-limit resource's window.
type bucket struct {
	limit int
	used  int
	reset time.Time
}

func (s *Server) bucketLocked(resource string) *bucket {
	b := s.limits[resource]
	if now := s.now(); b.reset.IsZero() || !now.Before(b.reset) {
		b.used = 0
		b.reset = now.Add(s.window).Truncate(time.Second)
	}
	return b
}

func (s *Server) rateExhausted(resource string) bool {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	b := s.bucketLocked(resource)
	return b.used >= b.limit
}

// rateHeaders sets X-RateLimit-* on h, consuming one request when spend.
func (s *Server) rateHeaders(h http.Header, resource string, spend bool) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	b := s.bucketLocked(resource)
	if spend && b.used < b.limit {
		b.used++
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(b.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(b.limit-b.used))
	h.Set("X-RateLimit-Used", strconv.Itoa(b.used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(b.reset.Unix(), 10))
	name, _, _ := strings.Cut(resource, ":") // an Actions token's bucket is still "core"
	h.Set("X-RateLimit-Resource", name)
}

// SetRateLimitRemaining sets how many core requests remain in the current
// window (tests use it to drive the client into the limit).
func (s *Server) SetRateLimitRemaining(remaining int) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	b := s.bucketLocked(resourceCore)
	b.used = max(0, b.limit-remaining)
}

func (s *Server) handleRateLimit(w http.ResponseWriter, _ *http.Request) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	res := map[string]any{}
	for name := range s.limits {
		if strings.Contains(name, ":") {
			continue // per-token buckets are not resources of their own
		}
		b := s.bucketLocked(name)
		res[name] = map[string]any{"limit": b.limit, "remaining": b.limit - b.used, "used": b.used, "reset": b.reset.Unix()}
	}
	writeJSON(w, http.StatusOK, map[string]any{"resources": res, "rate": res[resourceCore]})
}
