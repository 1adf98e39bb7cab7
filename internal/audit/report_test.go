package audit

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

func sampleLedger() pipeline.Ledger {
	return pipeline.Ledger{
		PerStage: map[string]pipeline.Usage{
			"architecture":    {Calls: 2, InputTokens: 40000, OutputTokens: 6000, CostUSD: 0.21},
			"intake":          {Calls: 1, InputTokens: 3000, OutputTokens: 400, CostUSD: 0.0150},
			"code-generation": {Calls: 5, InputTokens: 120000, OutputTokens: 30000, CostUSD: 0.81},
		},
	}
}

// sampleSWIs are two sub-work-items, the second depending on the first,
// with what each cost.
func sampleSWIs() []pipeline.SWI {
	return []pipeline.SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "swi-2", DependsOn: []string{"swi-1"}}, Issue: 51, Order: 1, Status: "in-progress",
			Attempts: map[pipeline.Stage]int{"code-generation": 2},
			Usage:    pipeline.Usage{Calls: 2, InputTokens: 50000, OutputTokens: 10000, CostUSD: 0.3}},
		{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}, Issue: 50, Order: 0, Status: "completed", Branch: "cogworks/42/swi-1", PR: 52,
			Usage: pipeline.Usage{Calls: 3, InputTokens: 70000, OutputTokens: 20000, CostUSD: 0.51}},
		{SubWorkItem: planner.SubWorkItem{ID: "swi-3"}, Issue: 53, Order: 2, Status: "pending"},
	}
}

func sampleSnapshot() pipeline.Snapshot {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := pipeline.NewSnapshot("acme/brakes", 42)
	s.Stage = pipeline.StageReview
	s.CurrentSWI = "swi-2"
	s.Attempts = map[pipeline.Stage]int{"intake": 1}
	s.Artifacts = pipeline.Artifacts{
		SpecBranch: "cogworks/42/spec", SpecPR: 43, InterfaceBranch: "cogworks/42/interfaces", InterfacePR: 44,
	}
	swis := sampleSWIs()
	s.SubWorkItems = []pipeline.SWI{swis[1], swis[0]}
	s.Classification = &classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{"brake"},
		EstimatedScope: classify.Scope{Files: 3, Interfaces: 1, Complexity: "low"}, SafetyAffecting: true, Rationale: "brake module"}
	s.Ledger = sampleLedger()
	s.Approvals = []pipeline.Approval{{Stage: pipeline.StageArchitecture, By: "alice", At: at, Via: "label"}}
	return s
}

func TestCostTableGolden(t *testing.T) {
	testkit.Golden(t, filepath.Join("testdata", "cost_table.md"), CostTable(sampleLedger(), sampleSWIs(), 500000, 10))
}

func TestCostTable(t *testing.T) {
	t.Run("unlimited budget", func(t *testing.T) {
		out := CostTable(pipeline.Ledger{}, nil, 0, 0)
		assert.Contains(t, out, "| **total** | **0** | **0** | **0** | **0** | **$0.0000** |")
		assert.Contains(t, out, "| budget | | | | unlimited | unlimited |")
		assert.Contains(t, out, "| remaining | | | | — | — |")
	})
	t.Run("over budget", func(t *testing.T) {
		out := CostTable(sampleLedger(), sampleSWIs(), 100000, 0.5)
		assert.Contains(t, out, "| remaining | | | | 99,400 over budget ⚠️ | $0.5350 over budget ⚠️ |")
	})
	t.Run("total sums stages, SWIs are a breakdown", func(t *testing.T) {
		out := CostTable(sampleLedger(), sampleSWIs(), 0, 0)
		assert.Contains(t, out, "| **total** | **8** | **163,000** | **36,400** | **199,400** | **$1.0350** |")
		assert.Less(t, strings.Index(out, "stage `intake`"), strings.Index(out, "stage `architecture`"), "pipeline order")
		assert.Less(t, strings.Index(out, "SWI `swi-1`"), strings.Index(out, "SWI `swi-2`"))
	})
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		assert.Equal(t, want, thousands(n))
	}
}

func TestStatusCommentGolden(t *testing.T) {
	s := sampleSnapshot()
	s.Gate = &pipeline.GateRecord{Stage: pipeline.StageReview, SWI: "swi-2", Since: time.Date(2026, 3, 5, 8, 0, 0, 0, time.UTC), Reason: "safety-critical"}
	// The status comment records each PR's last revision cycle (issue 28).
	s.RecordRevision(pipeline.RevisionRecord{PR: 52, Cycle: 1, Action: pipeline.RevisionRevised, Commit: "0123456789abcdef",
		Threads: 2, At: time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)})
	// And each PR's last restack: updated with main, a conflict resolved.
	s.RecordRestack(pipeline.RestackRecord{PR: 53, Action: pipeline.RestackResolved, Commit: "fedcba9876543210", Cycle: 1,
		Reason: "merge conflict in brake/brake.go", At: time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)})
	s.RecordRestack(pipeline.RestackRecord{PR: 52, Action: pipeline.RestackRetargeted, Base: "main", At: time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)})
	out, err := StatusComment(s, pipeline.StateMachine(), StatusOptions{
		Headline: "Review passed with 2 warnings; waiting for approval before integration",
		Warnings: []string{"75% of the cost budget is spent"}, RejectedApprovals: []string{"mallory (read)"},
		BudgetTokens: 500000, BudgetUSD: 10,
	})
	require.NoError(t, err)
	testkit.Golden(t, filepath.Join("testdata", "status.md"), out)
}

// TestStatusCommentShowsACIRerunAsNoCycle: a re-run of CI that failed on
// the infrastructure is recorded with what was re-run, and as no cycle.
func TestStatusCommentShowsACIRerunAsNoCycle(t *testing.T) {
	s := sampleSnapshot()
	s.RecordRevision(pipeline.RevisionRecord{PR: 52, Action: pipeline.RevisionRerun,
		Reason: "CI failed on the infrastructure, not the code: test: cancelled; re-ran the failed jobs of CI (run 9) once",
		At:     time.Date(2026, 3, 5, 9, 0, 0, 0, time.UTC)})
	out, err := StatusComment(s, pipeline.StateMachine(), StatusOptions{})
	require.NoError(t, err)
	assert.Contains(t, out, "- PR #52: CI rerun, no cycle spent, at ")
	assert.Contains(t, out, "re-ran the failed jobs of CI (run 9) once")
	assert.NotContains(t, out, "cycle 0", "a re-run is no cycle")
}

func TestStatusCommentEmbedsEverything(t *testing.T) {
	s := sampleSnapshot()
	m := pipeline.StateMachine()
	out, err := StatusComment(s, m, StatusOptions{})
	require.NoError(t, err)

	key, ok := FindKey(out)
	require.True(t, ok)
	assert.Equal(t, "42/status", key)
	assert.Contains(t, out, "```mermaid\n"+m.Mermaid("review")+"```")
	assert.Contains(t, out, "class review current")
	assert.Contains(t, out, "Specification PR: #43")
	assert.Contains(t, out, "| `swi-2` | #51 | 1 | `swi-1` | in-progress | — |")
	assert.Contains(t, out, "#### Cost so far")

	parsed, found, err := pipeline.ParseSnapshot(out)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, s, parsed, "the machine block round-trips")
}

func TestStatusCommentRedactsSnapshotSecrets(t *testing.T) {
	s := sampleSnapshot()
	token := "ghp_0123456789abcdefghijABCDEFGHIJ0123"
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"
	s.SubWorkItems = append(s.SubWorkItems, pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "leak"}, Feedback: "token " + token},
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "key"}, Feedback: pem})
	out, err := StatusComment(s, pipeline.StateMachine(), StatusOptions{})
	require.NoError(t, err)
	assert.NotContains(t, out, token)
	assert.NotContains(t, out, "b3BlbnNzaC1rZXk")

	parsed, found, err := pipeline.ParseSnapshot(out)
	require.NoError(t, err, "redaction keeps the block parseable")
	require.True(t, found)
	assert.Equal(t, "token "+Redacted, parsed.SubWorkItem("leak").Feedback)
	assert.Equal(t, Redacted, parsed.SubWorkItem("key").Feedback)
}

func TestAssertPSM007_StageEntryComment(t *testing.T) {
	out := StageEntryComment(42, pipeline.StageInterfaceDesign, "Designing the interfaces for the spec in #43.")
	key, ok := FindKey(out)
	require.True(t, ok)
	assert.Equal(t, "42/stage/interface-design/entry", key)
	assert.Contains(t, out, "### ⚙️ CogWorks — stage interface-design")
	assert.Contains(t, out, "entered stage `interface-design`")
	assert.Contains(t, out, "Designing the interfaces for the spec in #43.")
	assert.Contains(t, out, Footer)
}

func sampleFailure() Failure {
	return Failure{
		WorkItem: 42, Stage: "code-generation", SWI: "swi-2",
		Reason: "retry budget of 3 attempts exhausted",
		Attempts: []Attempt{
			{N: 1, Summary: "go build failed", Diagnostics: []string{"brake/abs.go:12:3: undefined: Pressure (type_error, blocking)"}},
			{N: 2, Summary: "tests failed", Diagnostics: []string{
				"--- FAIL: TestABS (0.00s)\n    abs_test.go:20: got 3, want 4\n```nested fence```",
				"go vet: brake/abs.go:30: unreachable code (warning)",
			}},
			{N: 3, Summary: "LLM returned the same code"},
		},
		Cost: &CostSummary{Ledger: sampleLedger(), SubWorkItems: sampleSWIs(), BudgetTokens: 500000, BudgetUSD: 10},
	}
}

func TestFailureReportGolden(t *testing.T) {
	testkit.Golden(t, filepath.Join("testdata", "failure_report.md"), FailureReport(sampleFailure()))
}

func TestAssertPSM006_FailureReportListsEveryAttempt(t *testing.T) {
	f := sampleFailure()
	out := FailureReport(f)
	key, ok := FindKey(out)
	require.True(t, ok)
	assert.Equal(t, "42/failure/code-generation", key)
	assert.Contains(t, out, "**Stage:** `code-generation`")
	assert.Contains(t, out, "**Reason:** retry budget of 3 attempts exhausted")
	assert.Contains(t, out, "`cogworks:stage:failed`")
	assert.Contains(t, out, "#### Attempts (3)")
	for _, a := range f.Attempts {
		assert.Contains(t, out, "**Attempt "+string(rune('0'+a.N))+"** — "+a.Summary)
		for _, d := range a.Diagnostics {
			for _, line := range strings.Split(d, "\n") {
				assert.Contains(t, out, line)
			}
		}
	}
	assert.Contains(t, out, "````\n", "a fence longer than the diagnostic's own")
	assert.Contains(t, out, "#### Cost")

	empty := FailureReport(Failure{WorkItem: 7, Stage: "intake"})
	assert.Contains(t, empty, "_No attempt was recorded._")
	assert.Contains(t, empty, "no reason recorded")
	assert.NotContains(t, empty, "#### Cost")
}
