package audit_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/finding"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/untrustedtest"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

const wj = "\u2060"

func TestUntrusted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text | with pipes", "plain text | with pipes"},
		{"<!-- hidden -->", "<" + wj + "!-- hidden --" + wj + ">"},
		{"<!-- cogworks:key=42/status -->", "<" + wj + "!-- cogworks" + wj + ":key=42/status --" + wj + ">"},
		{"COGWORKS : State {}", "COGWORKS" + wj + " : State {}"},
		{"cogworks:swi=1/a cogworks:plan= cogworks:interfaces=", "cogworks" + wj + ":swi=1/a cogworks" + wj + ":plan= cogworks" + wj + ":interfaces="},
		{"apply cogworks:approve", "apply cogworks:approve"},
		{"a --!> b", "a --" + wj + "!> b"},
		{"ends with <", "ends with <" + wj},
		{"x <<!--", "x <<" + wj + "!--"},
		{"<b>bold</b>", "<b>bold</b>"},
		{"", ""},
	}
	for _, tt := range tests {
		got := audit.Untrusted(tt.in)
		assert.Equal(t, tt.want, got, "Untrusted(%q)", tt.in)
		assert.Equal(t, got, audit.Untrusted(got), "Untrusted must be idempotent on %q", tt.in)
	}
}

// hostileSnapshot puts h into every string of a snapshot that the status
// comment renders.
func hostileSnapshot(h string) pipeline.Snapshot {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := pipeline.NewSnapshot("acme/brakes", 42)
	s.Stage = pipeline.StageReview
	s.CurrentSWI = h
	s.Attempts = map[pipeline.Stage]int{pipeline.Stage(h): 1}
	s.Artifacts = pipeline.Artifacts{SpecBranch: h, SpecPR: 43, InterfaceBranch: h}
	s.Classification = &classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{h}, Rationale: h}
	s.Ledger = pipeline.Ledger{
		PerStage: map[string]pipeline.Usage{h: {Calls: 1, InputTokens: 10, OutputTokens: 2, CostUSD: 0.01}, "intake": {Calls: 1}},
	}
	s.Approvals = []pipeline.Approval{{Stage: pipeline.StageArchitecture, SWI: h, By: h, At: at, Via: pipeline.ApprovalSource(h)}}
	s.Gate = &pipeline.GateRecord{Stage: pipeline.StageReview, SWI: h, Since: at, Reason: h}
	s.Failure = &pipeline.FailureRecord{Stage: pipeline.StageReview, SWI: h, Reason: h, At: at}
	s.Interfaces = []pipeline.InterfaceDecl{{ID: h, Name: h, File: h, Summary: h}}
	s.SubWorkItems = []pipeline.SWI{{
		SubWorkItem: planner.SubWorkItem{ID: h, Title: h, Description: h, Files: []string{h}, Interfaces: []string{h}, Tests: h, DependsOn: []string{h, "swi-1"}},
		Issue:       50, Order: 1, Status: pipeline.SWIStatus(h), Branch: h, PR: 52, Attempts: map[pipeline.Stage]int{"review": 2, pipeline.Stage(h): 1}, Usage: pipeline.Usage{Calls: 1},
		Feedback: h, Committed: []string{h}, Findings: []review.Finding{{File: h, Severity: finding.Severity(h), Explanation: h}},
	}}
	return s
}

// TestRenderPathsCarryOnlyTheBotsMarkers renders every audit comment with
// each hostile string in every field that can hold untrusted text and
// checks that the only markers in the result are the bot's own, that the
// state block still parses to the snapshot, and that tables keep their
// columns.
func TestRenderPathsCarryOnlyTheBotsMarkers(t *testing.T) {
	for _, h := range untrustedtest.Corpus(t) {
		t.Run("", func(t *testing.T) {
			out := audit.Format(audit.Comment{Key: "42/x", Title: h, Body: h + "\n\n" + h})
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{"42/x"}})

			snap := hostileSnapshot(h)
			status, err := audit.StatusComment(snap, pipeline.StateMachine(), audit.StatusOptions{
				Headline: h, Warnings: []string{h, h}, RejectedApprovals: []string{h}, BudgetTokens: 100, BudgetUSD: 1,
			})
			require.NoError(t, err)
			untrustedtest.AssertOnlyBotMarkers(t, status, untrustedtest.Want{
				Keys: []string{audit.StatusKey(42)}, Blocks: []string{"<!-- cogworks:state "}, Snapshot: true,
			})
			untrustedtest.AssertTablesIntact(t, status)
			got, _, err := pipeline.ParseSnapshot(status)
			require.NoError(t, err)
			assert.Equal(t, snap.Stage, got.Stage)
			if !strings.Contains(h, "ghp_") && utf8.ValidString(h) { // redaction and JSON change these
				assert.Equal(t, snap.CurrentSWI, got.CurrentSWI, "the state block keeps the exact text")
			}

			// Keys are built from the bot's own names (stage, attempt), so
			// those stay plain here.
			failure := audit.FailureReport(audit.Failure{
				WorkItem: 42, Stage: "review", SWI: h, Reason: h,
				Attempts: []audit.Attempt{{N: 1, Summary: h, Diagnostics: []string{h, h + "\n" + h}}},
				Cost:     &audit.CostSummary{Ledger: snap.Ledger, SubWorkItems: snap.SubWorkItems},
			})
			untrustedtest.AssertOnlyBotMarkers(t, failure, untrustedtest.Want{Keys: []string{audit.FailureKey(42, "review")}})
			untrustedtest.AssertTablesIntact(t, failure)

			table := audit.EventsTable([]audit.Event{{Kind: audit.EventKind(h), Stage: h, SWI: h, Summary: h}})
			events := audit.Format(audit.Comment{Key: "42/step/run-1", Title: h, Body: h + "\n\n<details><summary>audit</summary>\n\n" + table + "\n</details>"})
			untrustedtest.AssertOnlyBotMarkers(t, events, untrustedtest.Want{Keys: []string{"42/step/run-1"}})
			untrustedtest.AssertTablesIntact(t, events)

			entry := audit.StageEntryComment(42, pipeline.StageReview, h)
			untrustedtest.AssertOnlyBotMarkers(t, entry, untrustedtest.Want{Keys: []string{audit.StageEntryKey(42, pipeline.StageReview)}})
		})
	}
}

// FuzzUntrusted checks Untrusted on arbitrary text: the result holds no
// comment opener or closer and no marker name, only word joiners were
// added, it is idempotent, and two results written side by side cannot
// form an opener either.
func FuzzUntrusted(f *testing.F) {
	for _, h := range untrustedtest.Corpus(f) {
		f.Add(h, "<!-- x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ua := audit.Untrusted(a)
		for _, bad := range []string{"<!", "-->", "--!>"} {
			require.NotContains(t, ua, bad)
		}
		require.Equal(t, strings.ReplaceAll(audit.StripBidi(a), wj, ""), strings.ReplaceAll(ua, wj, ""), "only word joiners are inserted, and direction controls removed")
		require.Equal(t, ua, audit.Untrusted(ua), "idempotent")
		require.NotContains(t, ua+audit.Untrusted(b), "<!")
		out := audit.Format(audit.Comment{Key: "7/status", Title: a, Body: audit.Untrusted(b)})
		key, found := audit.FindKey(out)
		require.True(t, found)
		require.Equal(t, "7/status", key)
		require.Equal(t, 1, strings.Count(out, "<!--"), "only the bot's marker opens a comment")
		_, found, _ = pipeline.ParseSnapshot(out)
		require.False(t, found)
	})
}

// FuzzFindKey feeds arbitrary comment bodies to the key finder.
// Properties: no panic; a found key is the text between the first marker
// opening and its close; formatting the body under a key yields a comment
// whose only key is that key.
func FuzzFindKey(f *testing.F) {
	f.Add("<!-- cogworks:key=42/status -->\n### ⚙️ CogWorks — status")
	f.Add("text <!-- cogworks:key= -->")
	f.Add("<!-- cogworks:key=a/b")
	f.Add("<!-- cogworks:key=a -->< !-- cogworks:key=b -->")
	for _, h := range untrustedtest.Corpus(f) {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, body string) {
		key, found := audit.FindKey(body)
		if found {
			require.NotEmpty(t, key)
			require.NotContains(t, key, " -->")
			require.Contains(t, body, "<!-- cogworks:key="+key+" -->")
		}
		out := audit.Format(audit.Comment{Key: "9/x", Title: body, Body: body})
		got, found := audit.FindKey(out)
		require.True(t, found)
		require.Equal(t, "9/x", got)
		require.Equal(t, 1, strings.Count(out, "<!-- cogworks:key="))
	})
}
