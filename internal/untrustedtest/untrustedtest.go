// Package untrustedtest checks, for tests, that text the bot renders from
// untrusted sources cannot forge a hidden marker: it holds the corpus of
// hostile strings and the assertion that a rendered comment or body
// carries exactly the markers the bot put there.
package untrustedtest

import (
	_ "embed"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/pipeline"
)

//go:embed testdata/hostile.txt
var corpus string

// Corpus returns the hostile strings of testdata/hostile.txt: entries are
// separated by lines holding only "%%", comment lines before the first
// entry are skipped. A few strings that a text file cannot hold well
// (invalid UTF-8, NUL) are added.
func Corpus(t testing.TB) []string {
	t.Helper()
	parts := strings.Split(corpus, "\n%%\n")
	require.Greater(t, len(parts), 1, "hostile.txt holds no entry")
	entries := make([]string, 0, len(parts)+2)
	for _, p := range parts[1:] {
		entries = append(entries, strings.TrimSuffix(p, "\n"))
	}
	entries = append(entries, "\xff\xfe<!-- cogworks:key=42/status -->\xc0", "\x00<!--\x00cogworks:key=42/status -->")
	return entries
}

// Want is what the bot itself wrote into a rendered text.
type Want struct {
	// Keys are the keys of the audit markers ("<!-- cogworks:key=K -->"),
	// in order.
	Keys []string
	// Blocks are the beginnings of the other hidden blocks the bot wrote
	// (e.g. "<!-- cogworks:state ", "<!-- cogworks:swi=42/a -->"), in
	// order.
	Blocks []string
	// Snapshot is set when the text must carry a state block that parses.
	Snapshot bool
}

// AssertOnlyBotMarkers checks that every "<!--" in out opens one of the
// markers or blocks in want, in order, and that the text outside them
// holds no "<!" and no marker name: whatever untrusted text went into out
// cannot open a comment, hide text or forge state. FindKey must find the
// first wanted key, and ParseSnapshot must find a valid snapshot exactly
// when want.Snapshot is set.
func AssertOnlyBotMarkers(t testing.TB, out string, want Want) {
	t.Helper()
	expected := make([]string, 0, len(want.Keys)+len(want.Blocks))
	for _, k := range want.Keys {
		expected = append(expected, audit.Marker(k))
	}
	expected = append(expected, want.Blocks...)

	var outside strings.Builder
	rest, matched := out, 0
	for {
		i := strings.Index(rest, "<!--")
		if i < 0 {
			outside.WriteString(rest)
			break
		}
		outside.WriteString(rest[:i])
		rest = rest[i:]
		ok := false
		for j, e := range expected {
			if e != "" && strings.HasPrefix(rest, e) {
				expected[j] = "" // each wanted marker once
				ok = true
				break
			}
		}
		if !assert.True(t, ok, "unexpected HTML comment at %q\nin:\n%s", head(rest), out) {
			return
		}
		matched++
		end := strings.Index(rest, "-->")
		require.GreaterOrEqual(t, end, 0, "bot block not terminated in:\n%s", out)
		rest = rest[end+len("-->"):]
	}
	assert.Equal(t, len(want.Keys)+len(want.Blocks), matched, "every bot marker is present in:\n%s", out)
	text := outside.String()
	// A CogWorks marker name, however it is cased or spaced.
	markerName := regexp.MustCompile(`(?i)cogworks\s*:\s*(key|state|swi|plan|interfaces)`)
	assert.NotContains(t, text, "<!", "an HTML comment or declaration opener outside the bot's blocks in:\n%s", out)
	assert.Empty(t, markerName.FindAllString(text, -1), "a marker name outside the bot's blocks in:\n%s", out)

	if len(want.Keys) > 0 {
		key, found := audit.FindKey(out)
		assert.True(t, found)
		assert.Equal(t, want.Keys[0], key, "FindKey must find the bot's key")
	} else {
		_, found := audit.FindKey(out)
		assert.False(t, found, "no key marker expected in:\n%s", out)
	}
	_, found, err := pipeline.ParseSnapshot(out)
	assert.Equal(t, want.Snapshot, found, "state block presence in:\n%s", out)
	if want.Snapshot {
		assert.NoError(t, err)
	}
}

// AssertTablesIntact checks that every Markdown table in out (a "|" line
// followed by a "|---" separator, and the "|" lines after them) has the
// same number of unescaped pipes on every row, so untrusted cell text has
// not added or removed a column.
func AssertTablesIntact(t testing.TB, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") || !strings.HasPrefix(lines[i+1], "|---") && !strings.HasPrefix(lines[i+1], "|:--") {
			continue
		}
		want := pipes(lines[i])
		for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "|"); j++ {
			assert.Equal(t, want, pipes(lines[j]), "table row %q has a different number of cells than its header %q", lines[j], lines[i])
			i = j
		}
	}
}

// pipes counts the pipes of a table row that are not escaped by a
// preceding backslash (GitHub's rule for table cells).
func pipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
			n++
		}
	}
	return n
}

func head(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
