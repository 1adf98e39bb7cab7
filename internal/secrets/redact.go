package secrets

import (
	"regexp"
	"slices"
	"strings"
)

// MinLen is the shortest value redacted by value (see the package doc).
const MinLen = 8

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

// Redactor removes secrets from text. The zero value and a nil *Redactor
// remove token shapes only. A Redactor is immutable and safe for
// concurrent use.
type Redactor struct {
	// m matches the forms' normal forms over the text's (see normalise).
	m *matcher
	// exact matches, byte for byte, the forms whose normal form is
	// shorter than MinLen (a value made mostly of separators); nil when
	// there is none, which is the rule.
	exact *matcher
	// values is the number of values redacted by value.
	values int
}

// New returns a Redactor for values: each value of at least MinLen bytes
// (after trimming surrounding space) is found in every form described in
// the package doc; shorter values are ignored.
func New(values ...string) *Redactor {
	var normal, exact []string
	seen := map[string]bool{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinLen || seen[v] {
			continue
		}
		seen[v] = true
		for _, f := range forms(v) {
			n := normalise(f)
			if len(n) < MinLen {
				exact = append(exact, f)
				continue
			}
			normal = append(normal, n)
			if c := alignedCore(f); len(c) < len(f) && len(normalise(c)) >= MinLen {
				// Not UTF-8: the core matches even where the text's
				// neighbouring bytes join the edges into a character.
				normal = append(normal, normalise(c))
			}
		}
	}
	return &Redactor{m: buildMatcher(normal), exact: buildMatcher(exact), values: len(seen)}
}

// buildMatcher returns the automaton of the distinct patterns, or nil.
func buildMatcher(patterns []string) *matcher {
	if len(patterns) == 0 {
		return nil
	}
	slices.Sort(patterns)
	return newMatcher(slices.Compact(patterns))
}

// Values reports how many distinct values r redacts by value.
func (r *Redactor) Values() int {
	if r == nil {
		return 0
	}
	return r.values
}

// Redact returns text with every configured value, in any of its forms,
// and every token shape replaced by "[REDACTED]". Matching is on the
// normal form of the text, so a match may span separators, line breaks
// and invisible characters: the line breaks inside it are kept, each
// line's part becoming its own "[REDACTED]", so that the text still reads
// line by line. Base64 blobs of gzip or zlib data are inflated (within a
// bound) and replaced whole when what they hold has a secret.
func (r *Redactor) Redact(text string) string {
	if r == nil || (r.m == nil && r.exact == nil) {
		return RedactShapes(text)
	}
	text = r.redactCompressed(text)
	var spans [][2]int
	if r.m != nil {
		spans = r.m.normalSpans(spans, text)
	}
	if r.exact != nil {
		spans = mergeSpans(r.exact.spans(spans, text))
	}
	if len(spans) > 0 {
		text = replaceSpans(text, spans)
	}
	return RedactShapes(text)
}

// found reports whether text holds a configured value or a token shape.
func (r *Redactor) found(text string) bool {
	return (r.m != nil && len(r.m.normalSpans(nil, text)) > 0) || (r.exact != nil && len(r.exact.spans(nil, text)) > 0) || RedactShapes(text) != text
}

// mergeSpans sorts spans by start and merges those that overlap or touch.
func mergeSpans(spans [][2]int) [][2]int {
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	out := spans[:0]
	for _, s := range spans {
		out = addSpan(out, s[0], s[1])
	}
	return out
}

// replaceSpans replaces each span of text by Redacted, keeping the line
// breaks inside a span: each line's part of it is replaced on its own.
func replaceSpans(text string, spans [][2]int) string {
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	for _, s := range spans {
		b.WriteString(text[last:s[0]])
		for span, first := text[s[0]:s[1]], true; ; first = false {
			part, rest, more := strings.Cut(span, "\n")
			if !first {
				b.WriteByte('\n')
			}
			if strings.TrimSpace(part) != "" {
				b.WriteString(Redacted)
			}
			if !more {
				break
			}
			span = rest
		}
		last = s[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// The token shapes' patterns, compiled once: compiling them on every
// call cost most of a status comment's rendering time, since every string
// of a snapshot is redacted. They are never modified.
var (
	pemPattern = regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)
	patPattern = regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`)
	ghPattern  = regexp.MustCompile(`\bgh[opsur]_[A-Za-z0-9]{20,}`)
	skPattern  = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)
)

// shapeHints reports which shapes text may hold, by the literal each
// match contains ("-----BEGIN ", "github_pat_", "gh?_", "sk-"), found
// from the rarer '-' and '_' bytes so that text holding none skips the
// regular expressions after two fast scans.
func shapeHints(text string) (pem, pat, gh, sk bool) {
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '-')
		if j < 0 {
			break
		}
		p := i + j
		sk = sk || p >= 2 && text[p-2:p] == "sk"
		pem = pem || strings.HasPrefix(text[p:], "-----BEGIN ")
		i = p + 1
	}
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '_')
		if j < 0 {
			break
		}
		p := i + j
		gh = gh || p >= 3 && text[p-3:p-1] == "gh" && strings.IndexByte("opsur", text[p-1]) >= 0
		pat = pat || p >= 6 && text[p-6:p] == "github" && strings.HasPrefix(text[p:], "_pat_")
		i = p + 1
	}
	return pem, pat, gh, sk
}

// RedactShapes replaces common token shapes (GitHub tokens
// ghp_/gho_/ghu_/ghs_/ghr_ and github_pat_, LLM API keys sk-… and
// sk-ant-…, PEM private key blocks) with "[REDACTED]", whatever their
// values.
func RedactShapes(text string) string {
	pem, pat, gh, sk := shapeHints(text)
	for _, p := range []struct {
		hinted bool
		re     *regexp.Regexp
	}{{pem, pemPattern}, {pat, patPattern}, {gh, ghPattern}, {sk, skPattern}} {
		if !p.hinted {
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
