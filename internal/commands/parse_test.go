package commands

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Command
	}{
		{"approve", "/cogworks approve", []Command{{Name: Approve, Line: 1}}},
		{"case and spacing", "  /CogWorks   APPROVE  please\r\n", []Command{{Name: Approve, Line: 1}}},
		{"each command", "/cogworks retry\n/cogworks stop\n/cogworks status\n/cogworks help",
			[]Command{{Name: Retry, Line: 1}, {Name: Stop, Line: 2}, {Name: Status, Line: 3}, {Name: Help, Line: 4}}},
		{"after prose", "Looks good to me.\n\n/cogworks approve\n", []Command{{Name: Approve, Line: 3}}},
		{"bare prefix", "/cogworks", []Command{{Name: Unknown, Line: 1}}},
		{"unknown", "/cogworks merge now", []Command{{Name: Unknown, Word: "merge", Line: 1}}},
		{"unknown word cut", "/cogworks " + strings.Repeat("x", 60), []Command{{Name: Unknown, Word: strings.Repeat("x", 40) + "…", Line: 1}}},
		{"not first token", "please /cogworks approve", nil},
		{"glued", "/cogworksapprove", nil},
		{"list item", "- /cogworks approve", nil},
		{"quote", "> /cogworks approve", nil},
		{"nested quote", "> > /cogworks approve", nil},
		{"indented quote", "   > /cogworks approve", nil},
		{"lazy quote continuation", "> you said\n/cogworks approve", nil},
		{"after quote and blank", "> you said\n\n/cogworks approve", []Command{{Name: Approve, Line: 3}}},
		{"backtick fence", "```\n/cogworks approve\n```", nil},
		{"tilde fence", "~~~sh\n/cogworks approve\n~~~", nil},
		{"after fence", "```\nx\n```\n/cogworks stop", []Command{{Name: Stop, Line: 4}}},
		{"fence closed only by same char", "```\n~~~\n/cogworks approve\n```\n/cogworks help", []Command{{Name: Help, Line: 5}}},
		{"fence closed only by as many", "````\n```\n/cogworks approve\n````\n/cogworks help", []Command{{Name: Help, Line: 5}}},
		{"unclosed fence", "```\n/cogworks approve", nil},
		{"inline code is not a fence", "``/cogworks``\n/cogworks retry", []Command{{Name: Retry, Line: 2}}},
		{"indented code", "text\n\n    /cogworks approve", nil},
		{"tab indented code", "\t/cogworks approve", nil},
		{"three spaces is not code", "   /cogworks approve", []Command{{Name: Approve, Line: 1}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Parse(tt.body))
		})
	}
}

func TestMentions(t *testing.T) {
	assert.True(t, Mentions("hi /CogWorks approve"))
	assert.False(t, Mentions("hi cogworks"))
}

func TestHelpTextListsEveryCommand(t *testing.T) {
	h := HelpText()
	for _, n := range known {
		assert.Contains(t, h, "`/cogworks "+string(n)+"`")
	}
	assert.Empty(t, Parse(h), "the help text issues no command")
}

func TestMutating(t *testing.T) {
	assert.True(t, Approve.Mutating())
	assert.True(t, Stop.Mutating())
	assert.True(t, Retry.Mutating())
	assert.False(t, Status.Mutating())
	assert.False(t, Help.Mutating())
	assert.False(t, Unknown.Mutating())
}

// FuzzParse checks Parse's invariants on any input: it never panics, every
// command is on a real line that starts with the prefix, and quoting the
// whole body removes every command.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"/cogworks approve", "> /cogworks stop", "```\n/cogworks retry\n```", "    /cogworks help",
		"/cogworks", "/cogworks \xff\xfe", "~~~~\n~~~\n/cogworks status\n~~~~\n/cogworks x",
		"a\r\n/cogworks approve\r\n", "\t\t/cogworks", "> a\nb\n\n/cogworks retry",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmds := Parse(body)
		lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
		last := 0
		for _, c := range cmds {
			require.Greater(t, c.Line, last, "commands come in line order, one per line")
			last = c.Line
			require.LessOrEqual(t, c.Line, len(lines))
			fields := strings.Fields(lines[c.Line-1])
			require.NotEmpty(t, fields)
			require.True(t, strings.EqualFold(fields[0], Prefix))
			require.LessOrEqual(t, utf8.RuneCountInString(c.Word), maxWord+1)
			if c.Name != Unknown {
				require.Empty(t, c.Word)
			}
		}
		quoted := "> " + strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\n> ")
		require.Empty(t, Parse(quoted), "a quoted body issues no command")
		require.Equal(t, len(cmds) > 0, len(cmds) > 0 && Mentions(body))
	})
}
