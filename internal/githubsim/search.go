package githubsim

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
)

// searchQuery is a parsed /search/issues q parameter.
type searchQuery struct {
	repos     []string
	owners    []string
	state     string // open | closed | ""
	kind      string // issue | pr | ""
	labels    []string
	notLabels []string
	noLabel   bool
	author    string
	text      []string
	// in are the fields text must match in (title, body, comments);
	// empty means all three, as on GitHub.
	in []string
	// updated are the updated:<op><date> conditions.
	updated []dateCond
}

// dateCond is a date qualifier such as updated:>=2026-11-27T18:00:00Z.
type dateCond struct {
	op string // >=, >, <=, <
	at time.Time
}

func (d dateCond) holds(t time.Time) bool {
	switch d.op {
	case ">=":
		return !t.Before(d.at)
	case ">":
		return t.After(d.at)
	case "<=":
		return !t.After(d.at)
	default:
		return t.Before(d.at)
	}
}

// parseDateCond parses GitHub's date qualifier value: an operator and an
// ISO 8601 date, with or without a time.
func parseDateCond(v string) (dateCond, bool) {
	var d dateCond
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(v, op); ok {
			d.op, v = op, rest
			break
		}
	}
	if d.op == "" {
		return d, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			d.at = t
			return d, true
		}
	}
	return d, false
}

// tokenize splits q on whitespace, keeping double-quoted runs together and
// dropping the quotes (so label:"needs review" is one token).
func tokenize(q string) []string {
	var out []string
	var cur strings.Builder
	quoted, started := false, false
	for _, r := range q {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case unicode.IsSpace(r) && !quoted:
			if started {
				out = append(out, cur.String())
			}
			cur.Reset()
			started = false
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}

func parseSearch(q string) searchQuery {
	var sq searchQuery
	for _, tok := range tokenize(q) {
		key, val, qualified := strings.Cut(tok, ":")
		if !qualified || val == "" {
			sq.text = append(sq.text, strings.ToLower(tok))
			continue
		}
		switch strings.ToLower(key) {
		case "repo":
			sq.repos = append(sq.repos, strings.ToLower(val))
		case "org", "user":
			sq.owners = append(sq.owners, strings.ToLower(val))
		case "is", "state", "type":
			switch strings.ToLower(val) {
			case "open", "closed":
				sq.state = strings.ToLower(val)
			case "issue":
				sq.kind = "issue"
			case "pr", "pull-request":
				sq.kind = "pr"
			}
		case "label":
			sq.labels = append(sq.labels, strings.Split(val, ",")...)
		case "-label":
			sq.notLabels = append(sq.notLabels, val)
		case "no":
			sq.noLabel = strings.EqualFold(val, "label")
		case "author":
			// GitHub names an app's bot account app/<slug> in search.
			if slug, ok := strings.CutPrefix(strings.ToLower(val), "app/"); ok {
				val = slug + "[bot]"
			}
			sq.author = val
		case "in":
			sq.in = append(sq.in, strings.Split(strings.ToLower(val), ",")...)
		case "updated":
			d, ok := parseDateCond(val)
			if !ok {
				sq.text = append(sq.text, strings.ToLower(tok))
				continue
			}
			sq.updated = append(sq.updated, d)
		case "sort":
			// a ranking hint; no effect on the match set
		default:
			sq.text = append(sq.text, strings.ToLower(tok))
		}
	}
	return sq
}

func (sq searchQuery) matches(rp *repo, is *issue) bool {
	if len(sq.repos) > 0 {
		found := false
		for _, r := range sq.repos {
			found = found || r == strings.ToLower(rp.fullName())
		}
		if !found {
			return false
		}
	}
	if len(sq.owners) > 0 {
		owner, _, _ := strings.Cut(strings.ToLower(rp.fullName()), "/")
		found := false
		for _, o := range sq.owners {
			found = found || o == owner
		}
		if !found {
			return false
		}
	}
	switch {
	case sq.state != "" && is.state != sq.state,
		sq.kind == "issue" && is.pull, sq.kind == "pr" && !is.pull,
		!hasAllLabels(is, sq.labels),
		sq.noLabel && len(is.labels) > 0,
		sq.author != "" && !strings.EqualFold(sq.author, is.author):
		return false
	}
	for _, l := range sq.notLabels {
		if hasAllLabels(is, []string{l}) {
			return false
		}
	}
	for _, d := range sq.updated {
		if !d.holds(is.updated) {
			return false
		}
	}
	if len(sq.text) == 0 {
		return true
	}
	in := func(field string) bool { return len(sq.in) == 0 || slices.Contains(sq.in, field) }
	var hay strings.Builder
	if in("title") {
		hay.WriteString(is.title + "\n")
	}
	if in("body") {
		hay.WriteString(is.body + "\n")
	}
	if in("comments") {
		for _, id := range is.comments {
			if cm, ok := rp.comments[id]; ok {
				hay.WriteString(cm.body + "\n")
			}
		}
	}
	text := strings.ToLower(hay.String())
	for _, t := range sq.text {
		if !strings.Contains(text, t) {
			return false
		}
	}
	return true
}

type searchHit struct {
	rp *repo
	is *issue
}

func (s *Server) handleSearchIssues(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.newCall(w, r)
	q := r.URL.Query()
	if strings.TrimSpace(q.Get("q")) == "" {
		c.invalid(fieldError{Resource: "Search", Field: "q", Code: "missing"})
		return
	}
	sq := parseSearch(q.Get("q"))
	keys := make([]string, 0, len(s.repos))
	for k := range s.repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var hits []searchHit
	for _, k := range keys {
		rp := s.repos[k]
		var list []*issue
		for _, is := range rp.issues {
			if sq.matches(rp, is) {
				list = append(list, is)
			}
		}
		sortIssues(list, q.Get("sort"), q.Get("order"))
		for _, is := range list {
			hits = append(hits, searchHit{rp: rp, is: is})
		}
	}
	incomplete := s.takeIncompleteSearch()
	if incomplete {
		// A search that timed out answers with what it found so far.
		hits = hits[:len(hits)/2]
	}
	lo, hi := c.paginate(len(hits))
	items := []any{}
	for _, h := range hits[lo:hi] {
		c.repo = h.rp
		item := c.issueJSON(h.is)
		item["score"] = 1.0
		items = append(items, item)
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(hits), "incomplete_results": incomplete, "items": items})
}

// SetSearchIncomplete makes the next n searches time out as GitHub's do
// under load: 200 with "incomplete_results": true and only part of the
// matches.
func (s *Server) SetSearchIncomplete(n int) {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	s.incompleteSearches = n
}

func (s *Server) takeIncompleteSearch() bool {
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if s.incompleteSearches <= 0 {
		return false
	}
	s.incompleteSearches--
	return true
}
