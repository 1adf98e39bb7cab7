package audit

import (
	"strings"

	"github.com/cogworks/cogworks/internal/secrets"
)

const (
	markerOpen  = "<!-- cogworks:key="
	markerClose = " -->"
	// Footer ends every CogWorks comment.
	Footer = "<sub>CogWorks · automated pipeline bot · it never merges</sub>"
	// Redacted replaces every secret.
	Redacted = secrets.Redacted
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

// Redact replaces every occurrence of the given secrets (in every form
// secrets.New finds: plain, base64, hex, URL- and JSON-escaped; values
// shorter than secrets.MinLen are ignored) and of common token shapes
// (GitHub tokens ghp_/gho_/ghu_/ghs_/ghr_ and github_pat_, LLM API keys
// sk-… and sk-ant-…, PEM private key blocks) with "[REDACTED]". Callers
// redacting often with the same secrets build one secrets.Redactor
// instead.
func Redact(text string, values ...string) string {
	if len(values) == 0 {
		return secrets.RedactShapes(text)
	}
	return secrets.New(values...).Redact(text)
}
