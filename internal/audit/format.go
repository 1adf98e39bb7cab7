package audit

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

const (
	markerOpen  = "<!-- cogworks:key="
	markerClose = " -->"
	// Footer ends every CogWorks comment.
	Footer = "<sub>CogWorks · automated pipeline bot · it never merges</sub>"
	// Redacted replaces every secret.
	Redacted = "[REDACTED]"
)

// Comment is one bot comment before formatting.
type Comment struct {
	// Key is the deterministic key (see Key); "" formats a comment without
	// a marker, which the bot then cannot find again.
	Key string
	// Title and Body may hold untrusted text: Format makes them inert (see
	// Untrusted), so neither can open an HTML comment or spell a marker.
	// Body keeps "-->" (Mermaid arrows); fields rendered into it from
	// untrusted sources still go through Untrusted, code or cell.
	Title string
	Body  string
	// Hidden holds the bot's own machine blocks (a state snapshot, a plan),
	// written verbatim after the body. Never put untrusted text here.
	Hidden string
}

// Key joins parts with '/' into a deterministic comment key such as
// "42/architecture/status". Parts are trimmed, empty parts are skipped and
// any character outside [A-Za-z0-9._:/-] becomes '_', so a key can always
// be embedded in an HTML comment and found again.
func Key(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p = sanitizeKey(strings.TrimSpace(p)); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

func sanitizeKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == '.', r == '_', r == ':', r == '/', r == '-':
			return r
		}
		return '_'
	}, s)
}

// Marker returns the hidden marker "<!-- cogworks:key=<key> -->" by which
// the bot finds its own comment. Characters a key may not hold are
// replaced as in Key.
func Marker(key string) string { return markerOpen + sanitizeKey(key) + markerClose }

// FindKey returns the key of the first marker in body.
func FindKey(body string) (string, bool) {
	_, rest, ok := strings.Cut(body, markerOpen)
	if !ok {
		return "", false
	}
	key, _, ok := strings.Cut(rest, markerClose)
	if !ok || key == "" {
		return "", false
	}
	return key, true
}

// Format renders a bot comment: the marker, a header
// "### ⚙️ CogWorks — <title>", the body, the hidden blocks and the footer.
// Title and body are made inert first, so the only markers in the result
// are the key's and those in Hidden. The result passes through Redact.
func Format(c Comment) string {
	var b strings.Builder
	if c.Key != "" {
		b.WriteString(Marker(c.Key))
		b.WriteString("\n")
	}
	b.WriteString("### ⚙️ CogWorks — ")
	b.WriteString(Untrusted(strings.Join(strings.Fields(c.Title), " ")))
	b.WriteString("\n\n")
	if body := strings.TrimSpace(c.Body); body != "" {
		b.WriteString(defuseOpeners(body))
		b.WriteString("\n\n")
	}
	if hidden := strings.TrimSpace(c.Hidden); hidden != "" {
		b.WriteString(hidden)
		b.WriteString("\n\n")
	}
	b.WriteString("---\n")
	b.WriteString(Footer)
	b.WriteString("\n")
	return Redact(b.String())
}

// tokenPattern is one secret shape and the literals every match contains,
// checked first so that text without them skips the regular expression.
type tokenPattern struct {
	hints []string
	re    *regexp.Regexp
}

// tokenPatterns match common secret shapes. They are compiled once, like
// the project's other fixed patterns: compiling them on every call cost
// most of a status comment's rendering time, since every string of the
// snapshot is redacted. The slice is never modified.
var tokenPatterns = []tokenPattern{
	{[]string{"-----BEGIN "}, regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)},
	{[]string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`)},
	{[]string{"gho_", "ghp_", "ghs_", "ghu_", "ghr_"}, regexp.MustCompile(`\bgh[opsur]_[A-Za-z0-9]{20,}`)},
	{[]string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
}

func containsAny(text string, literals []string) bool {
	for _, l := range literals {
		if strings.Contains(text, l) {
			return true
		}
	}
	return false
}

// Redact replaces every occurrence of the given secrets, and of common
// token shapes (GitHub tokens ghp_/gho_/ghu_/ghs_/ghr_ and github_pat_,
// LLM API keys sk-… and sk-ant-…, PEM private key blocks), with
// "[REDACTED]". Empty secrets are ignored; longer secrets are replaced
// first so that one secret containing another is removed whole.
func Redact(text string, secrets ...string) string {
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range sorted {
		if s != "" {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	for _, p := range tokenPatterns {
		if !containsAny(text, p.hints) {
			continue
		}
		text = p.re.ReplaceAllStringFunc(text, func(m string) string {
			// An sk- word without a digit is prose ("sk-learn-…"), not a key.
			if strings.HasPrefix(m, "sk-") && !strings.ContainsAny(m, "0123456789") {
				return m
			}
			return Redacted
		})
	}
	return text
}
