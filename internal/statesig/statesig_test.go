package statesig

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	key := Key("k1")
	scope := Scope{Kind: "state", Repo: "acme/widgets", Issue: 7}
	text := `<!-- cogworks:state {"schema_version":"2.1.0"} -->`
	signed := "status\n" + text + "\n" + key.Marker(scope, text) + "\n"
	tests := []struct {
		name  string
		key   Key
		scope Scope
		body  string
		text  string
		want  Status
	}{
		{"valid", key, scope, signed, text, Valid},
		{"unsigned", key, scope, "status\n" + text, text, Unsigned},
		{"other key", Key("k2"), scope, signed, text, Invalid},
		{"other issue", key, Scope{Kind: "state", Repo: "acme/widgets", Issue: 8}, signed, text, Invalid},
		{"other comment", key, Scope{Kind: "state", Repo: "acme/widgets", Issue: 7, Comment: 42}, signed, text, Invalid},
		{"other kind", key, Scope{Kind: "lock", Repo: "acme/widgets", Issue: 7}, signed, text, Invalid},
		{"edited text", key, scope, signed, strings.Replace(text, "2.1.0", "2.1.1", 1), Invalid},
		{"no key never trusts a marker", nil, scope, signed, text, Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.key.Verify(tt.scope, tt.body, tt.text))
		})
	}
	placed := Scope{Kind: "state", Repo: "acme/widgets", Issue: 7, Comment: 42}
	assert.Equal(t, Valid, key.Verify(placed, "x\n"+key.Marker(placed, text), text), "bound to its comment")
	assert.Equal(t, Invalid, key.Verify(Scope{Kind: "state", Repo: "acme/widgets", Issue: 7, Comment: 43}, "x\n"+key.Marker(placed, text), text), "moved to another comment")
	assert.Equal(t, "status\n"+text+"\n", StripMAC(signed), "stripping leaves the body to re-sign")
	assert.Regexp(t, `^[0-9a-f]{64}$`, key.MAC(scope, text), "hex only: the marker cannot end an HTML comment early")
}

func TestDerive(t *testing.T) {
	t.Parallel()
	_, _, err := Derive(Sources{})
	require.True(t, errors.Is(err, ErrNoKeySource))
	a, from, err := Derive(Sources{LLMAPIKey: "sk-a", WebhookSecret: "w"})
	require.NoError(t, err)
	assert.Equal(t, "derived from the LLM API key", from)
	b, _, err := Derive(Sources{LLMAPIKey: "sk-b"})
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
	assert.Len(t, a, 32)
	assert.True(t, IsShared("github-actions[bot]"))
	assert.False(t, IsShared("cogworks[bot]"))
}

func TestAccept(t *testing.T) {
	t.Parallel()
	key := Key("k")
	tests := []struct {
		name   string
		key    Key
		st     Status
		shared bool
		want   bool
	}{
		{"no key: the author check only", nil, Unsigned, true, true},
		{"valid", key, Valid, true, true},
		{"invalid", key, Invalid, false, false},
		{"unsigned, own login: written before signing", key, Unsigned, false, true},
		{"unsigned, shared login", key, Unsigned, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Accept(tt.key, tt.st, tt.shared))
		})
	}
}

func TestVerifyState(t *testing.T) {
	t.Parallel()
	key := Key("k1")
	scope := Scope{Kind: KindState, Repo: "acme/widgets", Issue: 7}
	text := "block"
	at := func(comment int64) string {
		s := scope
		s.Comment = comment
		return "x\n" + key.Marker(s, text)
	}
	tests := []struct {
		name    string
		body    string
		comment int64
		seq     int64
		want    Status
	}{
		{"bound to its comment", at(42), 42, 9, Valid},
		{"moved to another comment", at(42), 43, 9, Invalid},
		{"the create write has no place", at(0), 42, 1, Valid},
		{"a block from before numbering has no place", at(0), 42, 0, Valid},
		{"a later block must have its place", at(0), 42, 2, Invalid},
		{"unsigned", "x", 42, 2, Unsigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, key.VerifyState(scope, tt.comment, tt.seq, tt.body, text))
		})
	}
}
