package factory

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cogworks/cogworks/internal/identity"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/statesig"
)

// SigningKey returns the key state blocks are signed with and where it came
// from; a nil key (no source set) signs and verifies nothing.
func (f *Factory) SigningKey() (statesig.Key, string) {
	if len(f.StateKey) > 0 {
		return f.StateKey, "built in"
	}
	key, from, err := statesig.Derive(statesig.Sources{
		StateKey:      f.Env(secrets.EnvStateKey),
		LLMAPIKey:     f.Env("COGWORKS_LLM_API_KEY"),
		AppPrivateKey: appPrivateKeyText(f.Env("COGWORKS_GITHUB_APP_PRIVATE_KEY")),
		WebhookSecret: f.Env(secrets.EnvWebhookSecret),
	})
	if err != nil {
		return nil, ""
	}
	return key, from
}

// appPrivateKeyText returns the App private key's PEM text from the
// variable's value: the text itself, or the file it names. The path alone
// is no secret, so an unreadable file yields "".
func appPrivateKeyText(v string) string {
	v = strings.TrimSpace(v)
	if v == "" || strings.Contains(v, "-----BEGIN") {
		return v
	}
	data, err := os.ReadFile(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// warnIdentity logs, at the start of a run, what makes the bot's own
// comments hard to tell from forgeries.
func (f *Factory) warnIdentity(bot string, key statesig.Key) {
	if statesig.IsShared(bot) {
		f.Logger().Warn("CogWorks writes as "+bot+", a login every workflow of the repository shares: install the CogWorks GitHub App or use a dedicated account (cogworks doctor fails this)",
			"login", bot, "state_key", len(key) > 0)
	}
	if len(key) == 0 {
		f.Logger().Warn("no state key: state blocks and lock claims are not signed; set " + secrets.EnvStateKey)
	}
}

// CheckIdentity is the doctor's identity check: a login shared with other
// workflows fails (anything they echo looks like CogWorks's), and so does
// a missing state key, without which nothing is signed.
func CheckIdentity(ctx context.Context, f *Factory, gh Client) Check {
	bot, err := f.OwnLogin(ctx, gh)
	if err != nil {
		return Check{Name: "identity", Status: CheckFail, Detail: err.Error(), Fix: "set " + identity.EnvBotLogin + " to the login CogWorks writes as"}
	}
	key, from := f.SigningKey()
	switch {
	case statesig.IsShared(bot):
		return Check{Name: "identity", Status: CheckFail,
			Detail: fmt.Sprintf("CogWorks writes as %s, which every workflow of the repository shares: any workflow that echoes an outsider's text can post state or a lock claim as CogWorks", bot),
			Fix:    "install the CogWorks GitHub App (or use a dedicated account's token) so that CogWorks has a login of its own; keep " + secrets.EnvStateKey + " set"}
	case len(key) == 0:
		return Check{Name: "identity", Status: CheckWarn,
			Detail: fmt.Sprintf("CogWorks writes as %s; no state key, so state blocks and lock claims are not signed", bot),
			Fix:    "set " + secrets.EnvStateKey + " (a long random secret) in CogWorks's environment only"}
	}
	return Check{Name: "identity", Status: CheckOK, Detail: fmt.Sprintf("CogWorks writes as %s; state is signed with a key %s", bot, from)}
}
