package secrets

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// depthSecret is a token-like value; none of the rows below matched it
// before normalisation and the added forms.
const depthSecret = "tok3n-Vq8RzP1mWkX4"

// variant is one way a program may print a secret.
type variant struct {
	name string
	enc  func(tb testing.TB, v string) string
}

// variants are the encodings redaction in depth covers, one per row.
func variants() []variant {
	b64 := base64.StdEncoding.EncodeToString
	return []variant{
		{"split across lines", func(_ testing.TB, v string) string { return v[:6] + "\n" + v[6:] }},
		{"split across lines, CRLF and indent", func(_ testing.TB, v string) string { return v[:5] + "\r\n    " + v[5:11] + "\n\t" + v[11:] }},
		{"reversed", func(_ testing.TB, v string) string { return reversed(v) }},
		{"base32 std padded", func(_ testing.TB, v string) string { return base32.StdEncoding.EncodeToString([]byte(v)) }},
		{"base32 std raw", func(_ testing.TB, v string) string {
			return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v))
		}},
		{"base32 hex padded", func(_ testing.TB, v string) string { return base32.HexEncoding.EncodeToString([]byte(v)) }},
		{"base32 hex raw, lower case", func(_ testing.TB, v string) string {
			return strings.ToLower(base32.HexEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(v)))
		}},
		{"base32 inside a longer blob", func(_ testing.TB, v string) string {
			return base32.StdEncoding.EncodeToString([]byte("ab" + v + "xyz"))
		}},
		{"hex upper case", func(_ testing.TB, v string) string { return strings.ToUpper(hex.EncodeToString([]byte(v))) }},
		{"hex with colons", func(_ testing.TB, v string) string { return separated(hex.EncodeToString([]byte(v)), ':') }},
		{"hex with dashes, upper case", func(_ testing.TB, v string) string {
			return strings.ToUpper(separated(hex.EncodeToString([]byte(v)), '-'))
		}},
		{"hex with spaces", func(_ testing.TB, v string) string { return separated(hex.EncodeToString([]byte(v)), ' ') }},
		{"hex dump in groups over two lines", func(_ testing.TB, v string) string {
			h := hex.EncodeToString([]byte(v))
			return h[:4] + " " + h[4:8] + " " + h[8:16] + "\n" + h[16:]
		}},
		{"base64 twice", func(_ testing.TB, v string) string { return b64([]byte(b64([]byte(v)))) }},
		{"base64 twice inside a longer blob", func(_ testing.TB, v string) string { return b64([]byte("x" + b64([]byte(v)) + "yz")) }},
		{"gzip then base64", func(tb testing.TB, v string) string { return b64(gzipped(tb, "log: "+v+"\n")) }},
		{"gzip then base64, wrapped at 76", func(tb testing.TB, v string) string {
			return wrap(b64(gzipped(tb, strings.Repeat("padding ", 20)+v)), 76)
		}},
		{"zlib then base64", func(tb testing.TB, v string) string { return b64(zlibbed(tb, v)) }},
		{"zlib then base64url", func(tb testing.TB, v string) string { return base64.RawURLEncoding.EncodeToString(zlibbed(tb, v)) }},
		{"zero-width space inside", func(_ testing.TB, v string) string { return insertEvery(v, "\u200b", 3) }},
		{"zero-width non-joiner and joiner inside", func(_ testing.TB, v string) string { return insertEvery(v, "\u200c\u200d", 5) }},
		{"word joiner inside", func(_ testing.TB, v string) string { return insertEvery(v, "\u2060", 2) }},
		{"byte order mark inside", func(_ testing.TB, v string) string { return insertEvery(v, "\ufeff", 4) }},
		{"direction override inside", func(_ testing.TB, v string) string { return insertEvery(v, "\u202e", 7) }},
		{"full-width look-alikes", func(_ testing.TB, v string) string { return fullWidth(v) }},
		{"full-width, zero-width and a line break", func(_ testing.TB, v string) string {
			return fullWidth(v[:4]) + "\u200b" + v[4:9] + "\n" + fullWidth(v[9:])
		}},
	}
}

// TestRedTeamSecretsInDepth: generated code prints a secret in each of
// the variants above, for the failure report to publish. Before the
// normal form and the added forms, every row but "hex upper case" (then a
// form of its own, now folded by the normal form) left the secret
// readable.
func TestRedTeamSecretsInDepth(t *testing.T) {
	t.Parallel()
	r := New(depthSecret)
	for _, tt := range variants() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			leak := tt.enc(t, depthSecret)
			got := r.Redact("before " + leak + " after")
			assert.NotContains(t, got, leak)
			assert.NotContains(t, normalise(got), normalise(depthSecret), "no spelling of the secret survives")
			assert.Contains(t, got, Redacted)
			assert.True(t, strings.HasPrefix(got, "before "), "text before the secret stays: %q", got)
			assert.True(t, strings.HasSuffix(got, " after"), "text after the secret stays: %q", got)
			assert.LessOrEqual(t, len(got), len("before  after")+4*len(Redacted)+8, "little but the redaction is left: %q", got)
		})
	}
}

// A secret split across lines is redacted line by line, so the lines
// around it still read as they did.
func TestRedactKeepsTheLinesASecretSpans(t *testing.T) {
	t.Parallel()
	r := New(depthSecret)
	got := r.Redact("line 1\ntoken: " + depthSecret[:6] + "\n    " + depthSecret[6:] + " (wrapped)\nline 3")
	assert.Equal(t, "line 1\ntoken: "+Redacted+"\n"+Redacted+" (wrapped)\nline 3", got)
}

// Ordinary text that only looks compressed, and compressed text without
// a secret, are left alone; a blob too large to check is redacted whole,
// within the inflate bound.
func TestRedactCompressedBlobs(t *testing.T) {
	t.Parallel()
	r := New(depthSecret)
	harmless := base64.StdEncoding.EncodeToString(gzipped(t, "nothing to see here, just a log line\n"))
	tests := []struct{ name, in, want string }{
		{"harmless gzip", "blob " + harmless + " end", "blob " + harmless + " end"},
		{"words that start like zlib", "eJect the eNd, eFfort eAsy", "eJect the eNd, eFfort eAsy"},
		{"bad zlib check", "eJxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "eJxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"a bomb is redacted unread", "bomb " + base64.StdEncoding.EncodeToString(gzipped(t, strings.Repeat("\x00", 4*inflateBudget))) + " end",
			"bomb " + Redacted + " end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, r.Redact(tt.in))
		})
	}
}

// The property: whatever surrounds it, no variant of a random secret
// survives redaction, and text without a secret is unchanged.
func TestRedactNeverLeavesAVariant(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 12))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+="
	randomText := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = " \nabcdefghijklmnopqrstuvwxyz.,:;()0123456789"[rng.IntN(44)]
		}
		return string(b)
	}
	vs := variants()
	for range 400 {
		secret := make([]byte, 12+rng.IntN(30))
		for i := range secret {
			secret[i] = alphabet[rng.IntN(len(alphabet))]
		}
		v := vs[rng.IntN(len(vs))]
		r := New(string(secret))
		leak := v.enc(t, string(secret))
		prefix, suffix := randomText(rng.IntN(40)), randomText(rng.IntN(40))
		got := r.Redact(prefix + leak + suffix)
		require.NotContains(t, got, leak, "%s of %q", v.name, secret)
		require.NotContains(t, normalise(got), normalise(string(secret)), "%s of %q", v.name, secret)
		plain := prefix + suffix
		if !strings.Contains(normalise(plain), normalise(string(secret)[:MinLen])) {
			assert.Equal(t, plain, r.Redact(plain), "text without the secret is unchanged")
		}
	}
}

func gzipped(tb testing.TB, s string) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(tb, err)
	require.NoError(tb, w.Close())
	return b.Bytes()
}

func zlibbed(tb testing.TB, s string) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(tb, err)
	require.NoError(tb, w.Close())
	return b.Bytes()
}

// wrap breaks s into lines of n characters, as MIME base64 is written.
func wrap(s string, n int) string {
	var lines []string
	for len(s) > n {
		lines = append(lines, s[:n])
		s = s[n:]
	}
	return strings.Join(append(lines, s), "\n")
}

// insertEvery puts sep after every n characters of s.
func insertEvery(s, sep string, n int) string {
	var b strings.Builder
	for i := range len(s) {
		if i > 0 && i%n == 0 {
			b.WriteString(sep)
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fullWidth spells the printable ASCII of s with its full-width forms.
func fullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if '!' <= r && r <= '~' {
			r += 0xFF01 - '!'
		}
		b.WriteRune(r)
	}
	return b.String()
}
