// Package statesig signs and verifies the blocks CogWorks reads back as
// state (the snapshot in the status comment, lock claims) with an
// HMAC-SHA256 keyed by a secret only CogWorks holds.
//
// The author check (only the bot's own comments count) is not enough when
// the bot's login is shared: with the Actions GITHUB_TOKEN every workflow
// of the repository writes as github-actions[bot], so any workflow that
// echoes an outsider's text can post a state block or a lock claim "as
// the bot". A block whose MAC does not verify is not the bot's.
package statesig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// SharedLogin is the login of the Actions GITHUB_TOKEN's writes: every
// workflow of a repository writes as it, so it identifies no one.
const SharedLogin = "github-actions[bot]"

// IsShared reports whether login is shared with other writers, so that
// the author check alone cannot tell CogWorks's comments from forgeries.
func IsShared(login string) bool { return strings.EqualFold(strings.TrimSpace(login), SharedLogin) }

// The MAC marker follows the signed text in the comment body. Its hex
// digest holds no "--", '<' or '>', so it cannot end an HTML comment early.
const (
	macOpen  = "<!-- cogworks:mac v1 "
	macClose = " -->"
)

// Key is the secret state blocks are signed with. A nil Key signs nothing
// and verifies nothing (Status reports Unsigned for every block).
type Key []byte

// ErrNoKeySource reports that no secret to derive the key from is set.
var ErrNoKeySource = errors.New("no state key: set COGWORKS_STATE_KEY (or an LLM API key, App private key or webhook secret to derive it from)")

// Sources are the secrets a key may come from, in order of preference.
type Sources struct {
	// StateKey is COGWORKS_STATE_KEY, used as given.
	StateKey string
	// LLMAPIKey, AppPrivateKey and WebhookSecret are derived from with
	// HMAC-SHA256 under a fixed label, so the state key never equals a
	// secret that leaves CogWorks (the LLM key is sent to the provider).
	LLMAPIKey     string
	AppPrivateKey string
	WebhookSecret string
}

// deriveLabel separates the state key from any other use of a secret.
const deriveLabel = "cogworks state block MAC v1"

// DemoKey returns the fixed key of `cogworks demo`, whose simulator holds
// no secret. It must never sign a real repository's state.
func DemoKey() Key { return Key("cogworks-demo-state-key: not a secret") }

// Derive returns the state key and the name of the source it came from:
// COGWORKS_STATE_KEY, else derived from the LLM API key, else from the App
// private key, else from the webhook secret. It fails with ErrNoKeySource
// when none is set.
func Derive(src Sources) (Key, string, error) {
	if v := strings.TrimSpace(src.StateKey); v != "" {
		return Key(v), "COGWORKS_STATE_KEY", nil
	}
	for _, c := range []struct{ name, secret string }{
		{"the LLM API key", src.LLMAPIKey},
		{"the GitHub App private key", src.AppPrivateKey},
		{"the webhook secret", src.WebhookSecret},
	} {
		if s := strings.TrimSpace(c.secret); s != "" {
			m := hmac.New(sha256.New, []byte(s))
			m.Write([]byte(deriveLabel))
			return Key(m.Sum(nil)), "derived from " + c.name, nil
		}
	}
	return nil, "", ErrNoKeySource
}

// The kinds of signed blocks.
const (
	KindState = "state"
	KindLock  = "lock"
)

// Scope binds a MAC to what it signs: its kind ("state", "lock") and the
// work item, so a block cannot be replayed on another issue or as another
// kind, and, once known, the comment that holds it, so a block cannot be
// moved to another comment. A zero Comment signs no place: the MAC is then
// the one builds before Comment existed wrote, so their blocks still
// verify (the caller decides when a block without a place is acceptable).
type Scope struct {
	Kind    string
	Repo    string
	Issue   int
	Comment int64
}

// String implements fmt.Stringer.
func (s Scope) String() string { return fmt.Sprintf("%s %s#%d", s.Kind, s.Repo, s.Issue) }

// MAC returns the hex HMAC-SHA256 of text under scope.
func (k Key) MAC(scope Scope, text string) string {
	m := hmac.New(sha256.New, k)
	fmt.Fprintf(m, "%s\n%s\n%d\n", scope.Kind, scope.Repo, scope.Issue)
	if scope.Comment != 0 {
		fmt.Fprintf(m, "comment %d\n", scope.Comment)
	}
	m.Write([]byte(text))
	return hex.EncodeToString(m.Sum(nil))
}

// Marker returns the MAC marker of text under scope, to be written after
// it in the same comment.
func (k Key) Marker(scope Scope, text string) string {
	return macOpen + k.MAC(scope, text) + macClose
}

// Status is what Verify concluded about a block.
type Status int

// Verification outcomes.
const (
	// Unsigned: the comment carries no MAC marker (written before
	// signing existed, or by someone without the key).
	Unsigned Status = iota
	// Valid: the MAC verifies under the key.
	Valid
	// Invalid: a MAC is present and does not verify: not the bot's.
	Invalid
)

// String implements fmt.Stringer.
func (s Status) String() string {
	switch s {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unsigned"
}

// Verify checks the MAC marker in body against text under scope. A nil
// key verifies nothing: a present marker is then Invalid rather than
// trusted, and its absence Unsigned.
func (k Key) Verify(scope Scope, body, text string) Status {
	got, ok := FindMAC(body)
	if !ok {
		return Unsigned
	}
	if len(k) == 0 {
		return Invalid
	}
	want := k.MAC(scope, text)
	if hmac.Equal([]byte(got), []byte(want)) {
		return Valid
	}
	return Invalid
}

// VerifyState checks the state block text of the comment with id comment,
// whose sequence number (as the block says) is seq. A block is bound to
// its comment from the second write on; the write that creates the
// comment (seq 1) cannot know its id, and blocks written before blocks
// were numbered (seq 0) bound none, so those verify without a place too.
func (k Key) VerifyState(scope Scope, comment, seq int64, body, text string) Status {
	scope.Comment = comment
	st := k.Verify(scope, body, text)
	if st != Invalid || seq > 1 {
		return st
	}
	scope.Comment = 0
	return k.Verify(scope, body, text)
}

// FindMAC returns the hex digest of the first MAC marker in body.
func FindMAC(body string) (string, bool) {
	i := strings.Index(body, macOpen)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(macOpen):]
	j := strings.Index(rest, macClose)
	if j < 0 {
		return "", false
	}
	return strings.TrimSpace(rest[:j]), true
}

// StripMAC removes every MAC marker (and the newline before it) from
// body, so a body can be re-signed.
func StripMAC(body string) string {
	for {
		i := strings.Index(body, macOpen)
		if i < 0 {
			return body
		}
		j := strings.Index(body[i:], macClose)
		if j < 0 {
			return body[:i]
		}
		start := i
		if start > 0 && body[start-1] == '\n' {
			start--
		}
		body = body[:start] + body[i+j+len(macClose):]
	}
}

// Accept is the one rule for whether a block the bot's login wrote is the
// bot's: without a key only the author check applies; with one a valid MAC
// is needed, except that an unsigned block (written before signing
// existed) is accepted while the login is the bot's own (shared false),
// since then no one else can have written it. The next write signs it.
func Accept(k Key, st Status, shared bool) bool {
	switch {
	case len(k) == 0:
		return true
	case st == Valid:
		return true
	case st == Unsigned:
		return !shared
	}
	return false
}
