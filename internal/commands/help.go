package commands

import (
	"fmt"
	"strings"
)

// usage is one line of the help text per command.
var usage = map[Name]string{
	Approve: "pass the gate that is waiting for a human (like the `cogworks:approve` label)",
	Retry:   "resume a failed or stopped pipeline (like the `cogworks:retry` label)",
	Stop:    "halt the pipeline; nothing runs until `/cogworks retry` or `cogworks:run` is applied again",
	Fix:     "on a CogWorks pull request's conversation: revise it on the text after `fix` and its writers' unanswered inline review comments (one commit, one answer each, at most `[revision] max_cycles` per PR)",
	Status:  "answer with a link to the status comment",
	Help:    "answer with this list",
}

// HelpText is the command list, in Markdown.
func HelpText() string {
	var b strings.Builder
	b.WriteString("these are the commands CogWorks understands, each at the start of a line of its own (not in a quote or a code block):\n\n")
	for _, n := range known {
		fmt.Fprintf(&b, "- `%s %s`: %s\n", Prefix, n, usage[n])
	}
	b.WriteString("\n`approve`, `retry`, `stop` and `fix` need write, maintain or admin permission on the repository, the same rule as the labels.\n")
	return b.String()
}

// Mutating reports whether the command changes the pipeline, and so needs
// write permission.
func (n Name) Mutating() bool { return n == Approve || n == Retry || n == Stop || n == Fix }
