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
	m *matcher
	// values is the number of values redacted by value.
	values int
}

// New returns a Redactor for values: each value of at least MinLen bytes
// (after trimming surrounding space) is found in every form described in
// the package doc; shorter values are ignored.
func New(values ...string) *Redactor {
	var patterns []string
	seen := map[string]bool{}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) < MinLen || seen[v] {
			continue
		}
		seen[v] = true
		patterns = append(patterns, forms(v)...)
	}
	slices.Sort(patterns)
	patterns = slices.Compact(patterns)
	r := &Redactor{values: len(seen)}
	if len(patterns) > 0 {
		r.m = newMatcher(patterns)
	}
	return r
}

// Values reports how many distinct values r redacts by value.
func (r *Redactor) Values() int {
	if r == nil {
		return 0
	}
	return r.values
}

// Redact returns text with every configured value, in any of its forms,
// and every token shape replaced by "[REDACTED]".
func (r *Redactor) Redact(text string) string {
	if r != nil && r.m != nil {
		if spans := r.m.spans(text); len(spans) > 0 {
			var b strings.Builder
			b.Grow(len(text))
			last := 0
			for _, s := range spans {
				b.WriteString(text[last:s[0]])
				b.WriteString(Redacted)
				last = s[1]
			}
			b.WriteString(text[last:])
			text = b.String()
		}
	}
	return RedactShapes(text)
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
