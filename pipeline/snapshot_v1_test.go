package pipeline

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

// testdata/snapshot-v1.0.0.md is a status comment rendered by the last 1.x
// build (RenderSnapshot with the string map "data"), kept byte for byte.
func TestParseSnapshotMigratesGoldenV1(t *testing.T) {
	body, err := os.ReadFile("testdata/snapshot-v1.0.0.md")
	require.NoError(t, err)
	got, found, err := ParseSnapshot(string(body))
	require.NoError(t, err)
	require.True(t, found)

	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	want := NewSnapshot("acme/brakes", 42)
	want.Stage = StageReview
	want.CurrentSWI = "B"
	want.Attempts = map[Stage]int{"intake": 1}
	want.Artifacts = Artifacts{SpecBranch: "cogworks/42/spec", SpecPR: 43, InterfaceBranch: "cogworks/42/interfaces", InterfacePR: 44}
	want.Classification = &classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{"brake"},
		EstimatedScope: classify.Scope{Files: 3, Interfaces: 1, Complexity: "low"}, Rationale: "adds a counter"}
	want.Ledger = Ledger{PerStage: map[string]Usage{"intake": {Calls: 1, InputTokens: 1000, OutputTokens: 200, CostUSD: 0.0123}}}
	want.Approvals = []Approval{{Stage: StageArchitecture, By: "alice", At: at, Via: "label", EventID: 9}}
	want.Interfaces = []InterfaceDecl{
		{ID: "IF-1", Name: "HourlyCounter", File: "counter/hourly.go", Summary: "counts per hour"},
		{ID: "IF-2", Name: "Report", File: "telemetry/report.go", Summary: "reports -- counts"},
	}
	want.ScenarioHistory = map[string][]bool{"SC-1": {true, true, false}}
	want.SubWorkItems = []SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "A", Title: "Counter", Description: "Do A", Files: []string{"counter/hourly.go"}, Interfaces: []string{"IF-1"}, Tests: "unit", DependsOn: []string{}},
			Issue: 50, Order: 1, Status: "completed", Branch: "cogworks/42/swi-1", PR: 52,
			Committed: []string{"counter/hourly.go", "counter/hourly_test.go"},
			Findings:  []review.Finding{{File: "counter/hourly.go", Line: 12, Severity: domain.SeverityWarning, Criterion: "naming", Explanation: "rename <x> --> y"}}},
		{SubWorkItem: planner.SubWorkItem{ID: "B", Title: "Report", Description: "Do B", Files: []string{"telemetry/report.go"}, Interfaces: []string{"IF-2"}, Tests: "unit", DependsOn: []string{"A"}},
			Issue: 51, Order: 2, Status: "in-progress", Branch: "cogworks/42/swi-2",
			Attempts: map[Stage]int{"code-generation": 2}, RemediationCycles: 1,
			Feedback: "review found 1 blocking finding:\n- telemetry/report.go:3 handle the error", Committed: []string{"telemetry/report.go"}},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, SchemaVersion, got.SchemaVersion, "a migrated snapshot is written back in the current form")

	block, err := RenderSnapshot(got)
	require.NoError(t, err)
	assert.NotContains(t, block, `"data"`)
	again, _, err := ParseSnapshot(block)
	require.NoError(t, err)
	assert.Equal(t, got, again, "the migrated snapshot round-trips in the current form")
}

func TestParseSnapshotMigratesV1PlanForms(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"bare item list", `{"plan":"[{\"id\":\"A\"},{\"id\":\"B\"}]"}`, []string{"A", "B"}},
		{"plan object", `{"plan":"{\"sub_work_items\":[{\"id\":\"A\"}]}"}`, []string{"A"}},
		{"single item keys", `{"plan/B":"{\"id\":\"B\"}","plan":"[{\"id\":\"A\"}]"}`, []string{"A", "B"}},
		{"item already planned", `{"plan/A":"{\"id\":\"A\"}","plan":"[{\"id\":\"A\"}]"}`, []string{"A"}},
		{"empty", `{"plan":"[]","interfaces":"[]","scenario_history":"{}","files/A":"[]","findings/A":"[]","feedback/A":""}`, nil},
		{"unknown key", `{"note":"kept by nobody"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"1.3.0","repo":"a/b","data":` + tt.data + `} -->`)
			require.NoError(t, err)
			var ids []string
			for _, it := range s.SubWorkItems {
				ids = append(ids, it.ID)
			}
			assert.Equal(t, tt.want, ids)
			if tt.want == nil {
				assert.Equal(t, Snapshot{SchemaVersion: SchemaVersion, Repo: "a/b"}, s, "nothing empty is kept")
			}
		})
	}
}
