package audit

import "strings"

// Untrusted makes text from an untrusted source (issue text, LLM output,
// file paths, diagnostics, logins) safe to place in a bot comment or body:
// it can no longer open an HTML comment, so it can neither hide text nor
// forge a "<!-- cogworks:key=" marker or a "<!-- cogworks:state" block that
// the bot's parsers would read as its own. A zero-width space after '<'
// keeps the text readable, code spans included.
func Untrusted(s string) string {
	return strings.ReplaceAll(s, "<!--", "<\u200b!--")
}

// EventsTable renders audit events as a Markdown table.
func EventsTable(events []Event) string {
	var b strings.Builder
	b.WriteString("| kind | stage | sub-work-item | event |\n|---|---|---|---|\n")
	for _, e := range events {
		b.WriteString("| " + cell(e.Kind) + " | " + cell(e.Stage) + " | " + cell(e.SWI) + " | " + cell(e.Summary) + " |\n")
	}
	return b.String()
}
