package secrets

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const apiKey = "sk-live/Key+with spaces&symbols<>"

func TestRedactFindsEveryForm(t *testing.T) {
	t.Parallel()
	jsonHTML, err := json.Marshal(apiKey)
	require.NoError(t, err)
	tests := []struct {
		name, form string
	}{
		{"plain", apiKey},
		{"hex lower", hex.EncodeToString([]byte(apiKey))},
		{"hex upper", strings.ToUpper(hex.EncodeToString([]byte(apiKey)))},
		{"base64 std padded", base64.StdEncoding.EncodeToString([]byte(apiKey))},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString([]byte(apiKey))},
		{"base64 url padded", base64.URLEncoding.EncodeToString([]byte(apiKey))},
		{"base64 url raw", base64.RawURLEncoding.EncodeToString([]byte(apiKey))},
		{"query escaped", url.QueryEscape(apiKey)},
		{"path escaped", url.PathEscape(apiKey)},
		{"query escaped lower case", regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(url.QueryEscape(apiKey), strings.ToLower)},
		{"json escaped", strings.Trim(string(jsonHTML), `"`)},
	}
	r := New(apiKey)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "before " + tt.form + " after"
			got := r.Redact(text)
			assert.Equal(t, "before "+Redacted+" after", got)
		})
	}
}

// A secret encoded inside a longer blob starts at any byte alignment.
func TestRedactFindsBase64InsideALongerBlob(t *testing.T) {
	t.Parallel()
	const secret = "tok-0123456789abcdef"
	r := New(secret)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
		for _, prefix := range []string{"", "a", "ab", "abc", "abcd"} {
			for _, suffix := range []string{"", "z", "yz"} {
				blob := enc.EncodeToString([]byte(prefix + secret + suffix))
				got := r.Redact("blob: " + blob)
				require.Contains(t, got, Redacted, "prefix %q suffix %q: %s", prefix, suffix, blob)
				// What is left around the redaction encodes the neighbours
				// and at most the secret's two edge bytes.
				before, after, _ := strings.Cut(strings.TrimPrefix(got, "blob: "), Redacted)
				assert.LessOrEqual(t, len(before), len(enc.EncodeToString([]byte(prefix)))+3, got)
				assert.LessOrEqual(t, len(after), len(enc.EncodeToString([]byte(suffix)))+4, got)
			}
		}
	}
}

func TestRedactLeavesShortValuesAndOrdinaryText(t *testing.T) {
	t.Parallel()
	r := New("short", "", "   ", "1234567")
	assert.Equal(t, 0, r.Values())
	text := "a short text with 1234567 in it"
	assert.Equal(t, text, r.Redact(text))
	r = New("abcdefgh")
	assert.Equal(t, 1, r.Values())
	assert.Equal(t, "x "+Redacted+" y", r.Redact("x abcdefgh y"))
}

func TestRedactMergesOverlappingSecrets(t *testing.T) {
	t.Parallel()
	r := New("secret-inner-1", "outer-secret-inner-1-tail", "AAAAAAAAAA")
	assert.Equal(t, "<"+Redacted+">", r.Redact("<outer-secret-inner-1-tail>"))
	assert.Equal(t, Redacted+" and "+Redacted, r.Redact("secret-inner-1 and AAAAAAAAAAAA"))
	assert.Equal(t, "", New().Redact(""))
}

func TestRedactShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"classic PAT", "token ghp_" + strings.Repeat("a", 36), "token " + Redacted},
		{"fine-grained PAT", "github_pat_" + strings.Repeat("B", 40), Redacted},
		{"installation token", "ghs_" + strings.Repeat("c1", 18) + ".", Redacted + "."},
		{"anthropic key", "key=sk-ant-api03-" + strings.Repeat("x9", 20), "key=" + Redacted},
		{"prose", "use sk-learn-and-sk-image-for-this-kind", "use sk-learn-and-sk-image-for-this-kind"},
		{"PEM", "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nb", "a\n" + Redacted + "\nb"},
		{"short ghp_ is not a token", "ghp_short", "ghp_short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RedactShapes(tt.in))
			var nilRedactor *Redactor
			assert.Equal(t, tt.want, nilRedactor.Redact(tt.in), "a nil Redactor still removes shapes")
		})
	}
}

func TestEnvValues(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		EnvGitHubToken:           "gh-token-value-1",
		EnvLLMAPIKey:             "llm-api-key-value",
		EnvWebhookSecret:         "hook-secret-now",
		EnvWebhookSecretPrevious: "hook-secret-before",
		EnvStateKey:              "state-key-value",
		"COGWORKS_LOG_LEVEL":     "debug-but-long",
	}
	environ := []string{"AWS_SECRET=aws-secret-value", "DB_PASSWORD_FILE=/run/pw-file", "NPM_TOKEN=npm-token-x", "SHORT_KEY=abc", "HOME=/root/home/dir", "no-equals"}
	got := EnvValues(func(k string) string { return env[k] }, environ)
	assert.ElementsMatch(t, []string{"gh-token-value-1", "llm-api-key-value", "hook-secret-now", "hook-secret-before", "state-key-value",
		"aws-secret-value", "/run/pw-file", "npm-token-x"}, got)
}

func TestPEMValuesFindTheKeyInEveryShape(t *testing.T) {
	t.Parallel()
	raw := testKeyPEM(t, 1024)
	r := New(EnvValues(func(k string) string {
		if k == EnvAppPrivateKey {
			return strings.ReplaceAll(raw, "\n", `\n`) // as a CI secret store flattens it
		}
		return ""
	}, nil)...)
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	body := strings.Join(lines[1:len(lines)-1], "")
	der, err := base64.StdEncoding.DecodeString(body)
	require.NoError(t, err)
	for name, leak := range map[string]string{
		"whole PEM":               raw,
		"one body line":           lines[3],
		"body on a line":          body,
		"hex of the DER":          hex.EncodeToString(der),
		"base64 of DER in a blob": base64.StdEncoding.EncodeToString(append([]byte("x"), der...)),
		"json of the PEM":         mustJSON(t, raw),
	} {
		got := r.Redact("leak: " + leak)
		assert.NotContains(t, got, lines[3][8:40], name)
		assert.Contains(t, got, Redacted, name)
	}
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// benchRedactor is the Redactor of a realistic environment: two tokens,
// an API key, two webhook secrets, a state key and an App private key.
func benchRedactor(tb testing.TB) (*Redactor, []string) {
	tb.Helper()
	raw := testKeyPEM(tb, 2048)
	tokens := []string{"ghp_" + strings.Repeat("t", 36), "ghs_" + strings.Repeat("s", 36), "sk-ant-" + strings.Repeat("k", 40),
		"webhook-secret-1", "webhook-secret-0", "state-key-0123456789"}
	return New(append(tokens, PEMValues(raw)...)...), tokens
}

// bench64KiB is a 64 KiB body of test output with a leak every 100
// lines, cycling through leaks.
func bench64KiB(leaks ...string) string {
	var sb strings.Builder
	line := "--- FAIL: TestSomething (0.00s)\n    widget_test.go:42: got 3, want 4 — see https://example.com/docs?q=1\n"
	for i := 0; sb.Len() < 64<<10; i++ {
		sb.WriteString(line)
		if i%100 == 50 {
			sb.WriteString(leaks[(i/100)%len(leaks)] + "\n")
		}
	}
	return sb.String()
}

// inDepthLeaks are several secrets in the forms redaction in depth
// covers: split across lines, base32, hex with colons, full-width, a gzip
// blob, zero-width characters.
func inDepthLeaks(tb testing.TB, tokens []string) []string {
	tb.Helper()
	return []string{
		tokens[3][:7] + "\n    " + tokens[3][7:],
		base32.StdEncoding.EncodeToString([]byte(tokens[5])),
		separated(hex.EncodeToString([]byte(tokens[4])), ':'),
		fullWidth(tokens[3]),
		base64.StdEncoding.EncodeToString(gzipped(tb, "env: "+tokens[5])),
		insertEvery(tokens[4], "\u200b", 3),
	}
}

// BenchmarkRedact64KiB redacts a 64 KiB comment body holding a secret's
// hex four times with the Redactor of a realistic environment.
func BenchmarkRedact64KiB(b *testing.B) {
	r, _ := benchRedactor(b)
	text := bench64KiB(hex.EncodeToString([]byte("webhook-secret-1")))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Redact(text)
	}
}

// BenchmarkRedact64KiBInDepth redacts a 64 KiB body holding several
// secrets in the forms of inDepthLeaks, with the same Redactor.
func BenchmarkRedact64KiBInDepth(b *testing.B) {
	r, tokens := benchRedactor(b)
	text := bench64KiB(inDepthLeaks(b, tokens)...)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Redact(text)
	}
}

// BenchmarkNew builds the Redactor of a realistic environment, App
// private key included (done once per process).
func BenchmarkNew(b *testing.B) {
	raw := testKeyPEM(b, 2048)
	values := append([]string{"ghp_" + strings.Repeat("t", 36), "sk-ant-" + strings.Repeat("k", 40), "webhook-secret-1"}, PEMValues(raw)...)
	for b.Loop() {
		_ = New(values...)
	}
}
