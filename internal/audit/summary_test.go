package audit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	head := make([]string, 0, 30)
	for i := range 30 {
		head = append(head, fmt.Sprintf("    noise line %d", i))
	}
	long := strings.Repeat("é", 400)
	tests := []struct {
		name, in string
		want     []string
		absent   []string
	}{
		{"short output is kept", "--- FAIL: TestA\n    a_test.go:3: got 1, want 2\n", []string{"--- FAIL: TestA", "a_test.go:3: got 1, want 2"}, []string{"not shown"}},
		{"head, diagnostics, count", strings.Join(head, "\n") + "\n    widget_test.go:42: got 3, want 4\n    secret-ish-tail\n",
			[]string{"noise line 0", "noise line 19", "widget_test.go:42: got 3, want 4", "… 11 more lines not shown (32 lines in all)"},
			[]string{"noise line 20", "secret-ish-tail"}},
		{"long line is cut on a rune", long, []string{"bytes cut)"}, []string{long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.in)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, a := range tt.absent {
				assert.NotContains(t, got, a)
			}
			assert.True(t, strings.ToValidUTF8(got, "?") == got, "valid UTF-8")
		})
	}
}

// A failing test that prints megabytes, and many attempts with many
// diagnostics, still make a report of bounded size that counts the rest.
func TestFailureReportIsCappedAndSummarised(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	out.WriteString("--- FAIL: TestBig (0.00s)\n")
	for i := range 20000 {
		fmt.Fprintf(&out, "    big_test.go:%d: line %d of the dump\n", i+1, i)
	}
	out.WriteString("    LAST-LINE-OF-THE-DUMP\n")
	var attempts []Attempt
	for n := 1; n <= 5; n++ {
		diags := []string{out.String()}
		for i := range 50 {
			diags = append(diags, fmt.Sprintf("brake/abs.go:%d: undefined: X%d", i, i))
		}
		attempts = append(attempts, Attempt{N: n, Summary: "tests failed", Diagnostics: diags})
	}
	report := FailureReport(Failure{WorkItem: 7, Stage: "code-generation", Reason: "retries exhausted", Attempts: attempts})
	assert.Less(t, len(report), MaxReportBytes+2048, "the attempts section is capped")
	assert.Contains(t, report, "big_test.go:1: line 0 of the dump", "the head is quoted")
	assert.NotContains(t, report, "LAST-LINE-OF-THE-DUMP", "the tail is not")
	assert.Contains(t, report, "more lines not shown (20002 lines in all)")
	assert.Contains(t, report, "not shown: the report is capped at 8 KiB")
	require.Contains(t, report, "**Attempt 1** — tests failed (51 diagnostics)")
}

func TestCap(t *testing.T) {
	t.Parallel()
	short := "### Scenario validation\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
	assert.Equal(t, short, Cap(short), "a short body is kept as it is")
	var b strings.Builder
	b.WriteString("**Failure details:**\n\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "- s%d: is %q, which does not match\n", i, strings.Repeat("v", 300))
	}
	got := Cap(b.String())
	assert.LessOrEqual(t, len(got), MaxReportBytes+100)
	assert.Contains(t, got, "- s0: is")
	assert.Contains(t, got, "bytes cut)", "long lines are cut")
	assert.Regexp(t, `more lines not shown: the report is capped at 8 KiB`, got)
	assert.NotContains(t, got, "- s1999:")
}
