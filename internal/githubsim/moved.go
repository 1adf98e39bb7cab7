package githubsim

import (
	"net/http"
	"strconv"
	"strings"
)

// MoveIssue transfers issue number of repo to toRepo (both "owner/name")
// and returns its number there, or 0 when either is unknown. As on GitHub,
// requests on the old issue then answer 301 with the new location
// (RuleMovedIssue).
func (s *Server) MoveIssue(repo string, number int, toRepo string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, to := s.repoLocked(repo), s.repoLocked(toRepo)
	if from == nil || to == nil || from.issues[number] == nil {
		return 0
	}
	old := from.issues[number]
	is := s.newIssue(to, old.title, old.body, old.author, s.now().UTC())
	for _, l := range old.labels {
		s.attachLabel(to, is, l, old.author, is.created)
	}
	delete(from.issues, number)
	if from.moved == nil {
		from.moved = map[int]string{}
	}
	from.moved[number] = to.fullName() + "/issues/" + strconv.Itoa(is.number)
	return is.number
}

// movedIssue answers 301 for a request on a moved issue and returns true.
// Go's HTTP client follows a 301 on POST or PATCH as a GET, so a write to
// a moved issue looks like a success unless the client refuses it.
func (c *call) movedIssue() bool {
	if len(c.repo.moved) == 0 || !c.s.enforced(RuleMovedIssue) {
		return false
	}
	prefix := "/repos/" + c.r.PathValue("owner") + "/" + c.r.PathValue("repo") + "/issues/"
	rest, ok := strings.CutPrefix(c.r.URL.Path, prefix)
	if !ok {
		return false
	}
	num, tail, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil {
		return false
	}
	target, ok := c.repo.moved[n]
	if !ok {
		return false
	}
	loc := c.base + "/repos/" + target
	if tail != "" {
		loc += "/" + tail
	}
	c.w.Header().Set("Location", loc)
	c.json(http.StatusMovedPermanently, map[string]any{
		"message": "Moved Permanently", "url": loc, "documentation_url": docsURL,
	})
	return true
}
