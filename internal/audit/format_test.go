package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestKey(t *testing.T) {
	tests := []struct {
		parts []string
		want  string
	}{
		{[]string{"42", "architecture", "status"}, "42/architecture/status"},
		{[]string{"42", "", " stage ", "interface-design"}, "42/stage/interface-design"},
		{[]string{"42", "swi 1", "a-->b"}, "42/swi_1/a--_b"},
		{nil, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Key(tt.parts...), "%q", tt.parts)
	}
}

func TestMarkerAndFindKey(t *testing.T) {
	assert.Equal(t, "<!-- cogworks:key=42/status -->", Marker("42/status"))
	key, ok := FindKey("hello\n<!-- cogworks:key=42/failure/review -->\nmore")
	require.True(t, ok)
	assert.Equal(t, "42/failure/review", key)

	for _, body := range []string{"", "no marker", "<!-- cogworks:key= -->", "<!-- cogworks:key=42 unterminated"} {
		_, ok := FindKey(body)
		assert.False(t, ok, body)
	}
}

func TestFindKeyRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.String(), 1, 5).Draw(t, "parts")
		key := Key(parts...)
		body := Format(Comment{Key: key, Title: rapid.String().Draw(t, "title"), Body: rapid.String().Draw(t, "body")})
		got, ok := FindKey(body)
		if key == "" {
			require.False(t, ok)
			return
		}
		require.True(t, ok)
		require.Equal(t, key, got)
		require.Equal(t, key, Key(key), "keys are stable under Key")
	})
}

func TestFormat(t *testing.T) {
	out := Format(Comment{Key: "42/status", Title: "status\nof #42", Body: "\nBody text.\n"})
	assert.Equal(t, "<!-- cogworks:key=42/status -->\n### ⚙️ CogWorks — status of #42\n\nBody text.\n\n---\n"+Footer+"\n", out)

	noKey := Format(Comment{Title: "t"})
	assert.NotContains(t, noKey, "cogworks:key")
	assert.True(t, strings.HasSuffix(noKey, Footer+"\n"))
}

func TestFormatRedactsTokens(t *testing.T) {
	out := Format(Comment{Key: "1/x", Title: "leak", Body: "token ghp_" + strings.Repeat("a1", 18)})
	assert.NotContains(t, out, "ghp_")
	assert.Contains(t, out, Redacted)
}

func TestRedact(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name    string
		in      string
		secrets []string
		want    string
	}{
		{"classic PAT", "use ghp_0123456789abcdefghijABCDEFGHIJ0123 now", nil, "use [REDACTED] now"},
		{"fine-grained PAT", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", nil, "[REDACTED]"},
		{"installation token", "x-access-token:ghs_abcdefghijklmnopqrstuvwxyz012345@github.com", nil, "x-access-token:[REDACTED]@github.com"},
		{"oauth token", "gho_abcdefghijklmnopqrstuvwxyz012345", nil, "[REDACTED]"},
		{"openai key", "key=sk-proj-abc123DEF456ghi789JKL012", nil, "key=[REDACTED]"},
		{"anthropic key", "sk-ant-api03-AbCdEf0123456789_xyz-QRS", nil, "[REDACTED]"},
		{"pem block", "before\n" + pem + "\nafter", nil, "before\n[REDACTED]\nafter"},
		{"unterminated pem", "x -----BEGIN PRIVATE KEY-----\nMIIE...", nil, "x [REDACTED]"},
		{"explicit secrets, longest first", "pw=hunter22hunter22 and hunter22", []string{"hunter22", "hunter22hunter22", ""}, "pw=[REDACTED] and [REDACTED]"},
		{"secrets under 8 bytes are not redacted by value", "pw=hunter2", []string{"hunter2"}, "pw=hunter2"},
		{"encoded secrets", "hex 68756e7465723232 b64 aHVudGVyMjI=", []string{"hunter22"}, "hex [REDACTED] b64 [REDACTED]"},
		{"short ghp prefix is not a token", "ghp_short", nil, "ghp_short"},
		{"prose with sk- is kept", "see sk-learn-is-a-python-library-name", nil, "see sk-learn-is-a-python-library-name"},
		{"words containing sk- are kept", "task-0123456789abcdefghijklmnop", nil, "task-0123456789abcdefghijklmnop"},
		{"nothing to redact", "plain text", nil, "plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Redact(tt.in, tt.secrets...))
		})
	}
}
