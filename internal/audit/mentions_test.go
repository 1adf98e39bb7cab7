package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/commands"
)

func TestUntrustedNeutralisesMentionsAndCommands(t *testing.T) {
	t.Parallel()
	const wj = "\u2060"
	tests := []struct{ name, in, want string }{
		{"user", "thanks @alice!", "thanks @" + wj + "alice!"},
		{"team", "cc @acme/security-team", "cc @" + wj + "acme/security-team"},
		{"start of text", "@bob please look", "@" + wj + "bob please look"},
		{"in parentheses", "(@carol)", "(@" + wj + "carol)"},
		{"e-mail is no mention", "mail dev@example.com", "mail dev@example.com"},
		{"module version is no mention", "golang.org/x/text@v0.3.0", "golang.org/x/text@v0.3.0"},
		{"after an underscore is no mention", "snake_@case", "snake_@case"},
		{"lone at", "a @ b", "a @ b"},
		{"command line", "done\n/cogworks approve\nbye", "done\n/" + wj + "cogworks approve\nbye"},
		{"indented, upper case command", "  /CogWorks retry", "  /" + wj + "CogWorks retry"},
		{"quoted command", "> /cogworks stop", "> /" + wj + "cogworks stop"},
		{"command mid-line is kept", "run `/cogworks help` to see", "run `/cogworks help` to see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Untrusted(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, Untrusted(got), "idempotent")
			assert.Equal(t, strings.ReplaceAll(tt.in, "\r", ""), strings.ReplaceAll(got, wj, ""), "readable: only word joiners are added")
		})
	}
}

// What an LLM writes into a comment never parses as a command.
func TestUntrustedTextCarriesNoCommand(t *testing.T) {
	t.Parallel()
	body := "Findings:\n/cogworks approve\n  /cogworks retry\n/COGWORKS stop\n"
	assert.NotEmpty(t, commands.Parse(body), "the raw text would command")
	assert.Empty(t, commands.Parse(Format(Comment{Title: "t", Body: Untrusted(body)})))
}

// The bot's own mentions, written outside Untrusted, still notify.
func TestFormatKeepsTheBotsOwnMentions(t *testing.T) {
	t.Parallel()
	got := Format(Comment{Title: "reply", Body: "@" + Untrusted("alice") + ", done."})
	assert.Contains(t, got, "@alice, done.")
}
