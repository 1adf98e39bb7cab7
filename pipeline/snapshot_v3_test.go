package pipeline

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/planner"
)

// testdata/snapshot-v3.0.0.md is a status comment rendered by the last 3.x
// build, kept byte for byte: a sub-work-item's state in five places
// (artifacts.sub_work_items, plan, swis, "swi/<id>/<stage>" attempts,
// remediation_cycles) and a sixth for its cost (ledger.per_swi). 4.0.0
// reads it as one record per sub-work-item.
func TestParseSnapshotMigratesGoldenV3(t *testing.T) {
	body, err := os.ReadFile("testdata/snapshot-v3.0.0.md")
	require.NoError(t, err)
	require.Contains(t, string(body), `"schema_version":"3.0.0"`)
	got, found, err := ParseSnapshot(string(body))
	require.NoError(t, err)
	require.True(t, found)

	// What 3.x kept outside the sub-work-items reads as the 2.x golden
	// did, with the 3.0.0 fields added.
	v2, err := os.ReadFile("testdata/snapshot-v2.0.0.md")
	require.NoError(t, err)
	want, _, err := ParseSnapshot(string(v2))
	require.NoError(t, err)
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	want.Pin = &IssuePin{SHA256: IssueDigest("Count brake events", "per hour"), By: "alice", At: at, Via: "label"}
	want.Gate.Resume = true
	want.TransientFailures = map[Stage]int{"review": 1}
	want.CommandsSeen = 77
	want.Attempts = map[Stage]int{"intake": 1, "planning": 1}
	want.SubWorkItems[0].Attempts = map[Stage]int{"code-generation": 1}
	want.SubWorkItems[0].Usage = Usage{Calls: 2, InputTokens: 3000, OutputTokens: 900, CostUSD: 0.05}
	want.SubWorkItems[1].Attempts = map[Stage]int{"code-generation": 2, "review": 1}
	want.SubWorkItems[1].Usage = Usage{Calls: 3, InputTokens: 4000, OutputTokens: 1200, CostUSD: 0.07}
	assert.Equal(t, want, got)
	assert.Equal(t, SchemaVersion, got.SchemaVersion, "a migrated snapshot is written back in the current form")

	b := got.SubWorkItem("B")
	require.NotNil(t, b)
	assert.Equal(t, SWI{
		SubWorkItem: planner.SubWorkItem{ID: "B", Title: "Report", Description: "Do B", Files: []string{"telemetry/report.go"},
			Interfaces: []string{"IF-2"}, Tests: "unit", DependsOn: []string{"A"}},
		Issue: 51, Order: 2, Status: "in-progress", Branch: "cogworks/42/swi-2",
		Attempts: map[Stage]int{"code-generation": 2, "review": 1}, RemediationCycles: 1,
		Usage:    Usage{Calls: 3, InputTokens: 4000, OutputTokens: 1200, CostUSD: 0.07},
		Feedback: "review found 1 blocking finding:\n- telemetry/report.go:3 handle the error", Committed: []string{"telemetry/report.go"},
	}, *b, "everything about B is in its one record")
	assert.Equal(t, 2, got.Attempt(StageCodeGeneration), "the current SWI's attempts")
	assert.Equal(t, 1, got.Attempt(StagePlanning))

	block, err := RenderSnapshot(got)
	require.NoError(t, err)
	for _, gone := range []string{`"plan":`, `"swis":`, `"swi/`, `"per_swi":`, `"remediation_cycles":{`} {
		assert.NotContains(t, block, gone, "4.0.0 keeps no second place for a sub-work-item")
	}
	assert.Equal(t, 1, strings.Count(block, `"sub_work_items":`))
	again, _, err := ParseSnapshot(block)
	require.NoError(t, err)
	assert.Equal(t, got, again, "the migrated snapshot round-trips in the 4.0.0 form")
}

func TestMigrateV3KeepsStateWithoutRecord(t *testing.T) {
	got, _, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"3.0.0","repo":"a/b",` +
		`"attempts":{"swi/Z/review":2,"swi/odd":1},"plan":[{"id":"P"}],"swis":{"E":{},"Z":{"feedback":"f"}},"ledger":{"per_swi":{"Z":{"calls":1}}}} -->`)
	require.NoError(t, err)
	assert.Equal(t, map[Stage]int{"swi/odd": 1}, got.Attempts, "a key that names no stage is kept as it was")
	assert.Equal(t, []SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "P"}},
		{SubWorkItem: planner.SubWorkItem{ID: "Z"}, Attempts: map[Stage]int{"review": 2}, Usage: Usage{Calls: 1}, Feedback: "f"},
	}, got.SubWorkItems, "state without an artifacts record becomes a record no stage picks up; an empty one is dropped")
}

func TestSnapshotAttemptsOfPerSWIStages(t *testing.T) {
	s := NewSnapshot("a/b", 1)
	s.SubWorkItems = []SWI{{SubWorkItem: planner.SubWorkItem{ID: "A"}}}
	s.AddAttempt(StageIntake, 1)
	s.CurrentSWI = "A"
	s.AddAttempt(StageCodeGeneration, 1)
	s.AddAttempt(StageCodeGeneration, 1)
	s.AddAttempt(StageReview, 1)
	s.AddAttempt(StageReview, -1)
	assert.Equal(t, map[Stage]int{"intake": 1}, s.Attempts)
	assert.Equal(t, map[Stage]int{"code-generation": 2, "review": 0}, s.SubWorkItems[0].Attempts)
	assert.Equal(t, 2, s.Attempt(StageCodeGeneration))
	assert.Equal(t, 1, s.Attempt(StageIntake))
	s.CurrentSWI = "gone"
	s.AddAttempt(StageReview, 1)
	assert.Equal(t, 1, s.Attempts["review"], "a current SWI without a record counts at the work item")
	assert.Nil(t, s.SubWorkItem("gone"))
}
