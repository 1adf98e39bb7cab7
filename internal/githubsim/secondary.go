package githubsim

import (
	"net/http"
	"strings"
	"time"
)

// GitHub's documented secondary limits on content-creating requests, and
// the hourly budget of an Actions GITHUB_TOKEN.
const (
	secondaryPerMinute = 80
	secondaryPerHour   = 500
	actionsTokenLimit  = 1000
)

// contentCreating reports whether r counts toward the secondary limit on
// content creation: writes, but not App token requests or GraphQL reads.
func contentCreating(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	p := r.URL.Path
	return !strings.HasPrefix(p, "/app/") && !strings.HasSuffix(p, "/graphql")
}

// secondaryLimited enforces RuleSecondaryRateLimit per token: it records
// a content-creating request and reports true, with the seconds to wait,
// when it is over 80 in the last minute or 500 in the last hour.
func (s *Server) secondaryLimited(r *http.Request) (bool, int) {
	if !contentCreating(r) || !s.enforced(RuleSecondaryRateLimit) {
		return false, 0
	}
	key := bearerToken(r)
	now := s.now()
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if s.writes == nil {
		s.writes = map[string][]time.Time{}
	}
	recent := s.writes[key][:0]
	perMinute := 0
	for _, t := range s.writes[key] {
		if now.Sub(t) < time.Hour {
			recent = append(recent, t)
			if now.Sub(t) < time.Minute {
				perMinute++
			}
		}
	}
	s.writes[key] = recent
	switch {
	case perMinute >= secondaryPerMinute:
		return true, 60
	case len(recent) >= secondaryPerHour:
		return true, int(time.Hour.Seconds() - now.Sub(recent[0]).Seconds() + 1)
	}
	s.writes[key] = append(recent, now)
	return false, 0
}

func writeSecondaryLimit(w http.ResponseWriter, retryAfter int) int {
	w.Header().Set("Retry-After", itoa(retryAfter))
	writeJSON(w, http.StatusForbidden, map[string]any{
		"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.",
		"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
	})
	return http.StatusForbidden
}

// rateResource picks the rate-limit bucket of r: an Actions GITHUB_TOKEN
// has 1,000 requests an hour per repository (RuleActionsTokenQuota)
// rather than the token owner's 5,000.
func (s *Server) rateResource(r *http.Request, resource string) string {
	if resource != resourceCore || !s.enforced(RuleActionsTokenQuota) {
		return resource
	}
	s.mu.Lock()
	g := s.grants[bearerToken(r)]
	s.mu.Unlock()
	if g == nil || g.kind != TokenActions {
		return resource
	}
	key := resourceCore + ":actions:" + g.repo
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if _, ok := s.limits[key]; !ok {
		s.limits[key] = &bucket{limit: actionsTokenLimit}
	}
	return key
}
