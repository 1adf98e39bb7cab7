package pipeline

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/finding"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

func codecSampleSnapshot() Snapshot {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := NewSnapshot("acme/brakes", 42)
	s.Stage = StageReview
	s.CurrentSWI = "swi-2"
	s.Attempts = map[Stage]int{"intake": 1}
	s.Lock = &LockRecord{Owner: "run-123", Acquired: at}
	s.Artifacts = Artifacts{SpecBranch: "cogworks/42/spec", SpecPR: 43}
	s.Classification = &classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{"brake"},
		EstimatedScope: classify.Scope{Files: 3, Interfaces: 1, Complexity: "low"}, SafetyAffecting: true,
		Rationale: "touches <brake> --> careful"}
	s.Ledger = Ledger{PerStage: map[string]Usage{"intake": {Calls: 1, InputTokens: 1000, OutputTokens: 200, CostUSD: 0.0123}}}
	s.Approvals = []Approval{{Stage: StageArchitecture, By: "alice", At: at, Via: "label"},
		{Stage: StageInterfaceDesign, By: "bob", At: at, Via: "command", CommentID: 77}}
	s.Stopped = &StopRecord{By: "carol", At: at, CommentID: 78}
	s.CommandsSeen = 78
	s.Interfaces = []InterfaceDecl{{ID: "IF-1", Name: "Brake", File: "brake/if.go", Summary: "a -- b --> c <!-- d"}}
	s.ScenarioHistory = map[string][]bool{"SC-1": {true, false}}
	s.SubWorkItems = []SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "swi-1", Title: "t", Files: []string{"a.go"}, Interfaces: []string{"IF-1"}, DependsOn: []string{}},
			Issue: 50, Order: 0, Status: "completed", Branch: "cogworks/42/swi-1", PR: 52},
		{SubWorkItem: planner.SubWorkItem{ID: "swi-2", DependsOn: []string{"swi-1"}}, Issue: 51, Order: 1, Status: "in-progress",
			Attempts: map[Stage]int{"code-generation": 3}, RemediationCycles: 1, Usage: Usage{Calls: 2, CostUSD: 0.5},
			Feedback: "fix --> it", Committed: []string{"a.go"},
			Findings: []review.Finding{{File: "a.go", Line: 3, Severity: domain.SeverityWarning, Explanation: "x"}}},
	}
	return s
}

func TestRenderSnapshotShape(t *testing.T) {
	out, err := RenderSnapshot(codecSampleSnapshot())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, "<!-- cogworks:state {"), out)
	require.True(t, strings.HasSuffix(out, "} -->"), out)
	inner := strings.TrimSuffix(strings.TrimPrefix(out, "<!-- cogworks:state "), " -->")
	assert.NotContains(t, inner, "--", "the JSON must not contain -- or it could end the comment")
	assert.NotContains(t, inner, ">")
	assert.NotContains(t, inner, "\n")
}

func TestParseSnapshotFindsBlockInBody(t *testing.T) {
	want := codecSampleSnapshot()
	block, err := RenderSnapshot(want)
	require.NoError(t, err)
	body := "### ⚙️ CogWorks — status\n\nSome text -- with dashes -->\n\n" + block + "\n\n<sub>footer</sub>"
	got, found, err := ParseSnapshot(body)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, want, got)
}

func TestParseSnapshotNotFound(t *testing.T) {
	got, found, err := ParseSnapshot("just a comment <!-- something else -->")
	require.NoError(t, err)
	assert.False(t, found)
	assert.Equal(t, Snapshot{}, got)
}

func TestParseSnapshotErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr string
	}{
		{"unterminated", `<!-- cogworks:state {"schema_version":"2.0.0"}`, "not terminated"},
		{"malformed JSON", `<!-- cogworks:state {"schema_version":"2.0.0", -->`, "malformed JSON"},
		{"not an object", `<!-- cogworks:state [1,2] -->`, "malformed JSON"},
		{"missing version", `<!-- cogworks:state {"repo":"a/b"} -->`, "schema_version is missing"},
		{"invalid version", `<!-- cogworks:state {"schema_version":"one"} -->`, `schema_version "one" is not a MAJOR.MINOR.PATCH`},
		{"two-part version", `<!-- cogworks:state {"schema_version":"1.0"} -->`, "not a MAJOR.MINOR.PATCH"},
		{"wrong field type", `<!-- cogworks:state {"schema_version":"2.0.0","work_item":"x"} -->`, `field "work_item"`},
		{"wrong field type in 1.x", `<!-- cogworks:state {"schema_version":"1.0.0","work_item":"x"} -->`, `field "work_item"`},
		{"undecodable 1.x data", `<!-- cogworks:state {"schema_version":"1.0.0","data":{"files/a":"{"}} -->`, `data key "files/a"`},
		{"wrong 3.x field type", `<!-- cogworks:state {"schema_version":"3.0.0","remediation_cycles":{"B":"x"}} -->`, `field "remediation_cycles"`},
		{"newer major", `<!-- cogworks:state {"schema_version":"5.0.0"} -->`,
			"snapshot schema 5.0.0 is newer than this CogWorks build supports (1.x to 4.x); upgrade CogWorks"},
		{"older major", `<!-- cogworks:state {"schema_version":"0.9.0"} -->`, "older than this CogWorks build supports"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, found, err := ParseSnapshot(tt.body)
			require.True(t, found)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestParseSnapshotVersionErrorIsTyped(t *testing.T) {
	_, _, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"5.1.0","stage":"intake"} -->`)
	var verr *VersionError
	require.True(t, errors.As(err, &verr), "got %v", err)
	assert.Equal(t, &VersionError{Found: "5.1.0", Supported: SchemaVersion}, verr)
}

func TestParseSnapshotAcceptsNewerMinor(t *testing.T) {
	got, found, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"4.7.2","repo":"a/b","work_item":3,"future_field":{"x":1},"artifacts":{},"ledger":{}} -->`)
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, Snapshot{SchemaVersion: "4.7.2", Repo: "a/b", WorkItem: 3}, got)
}

// Generators for the round-trip property. Empty maps and slices of
// omitempty fields are generated as nil, which is how they decode.

func genText() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.String(),
		rapid.SampledFrom([]string{"-->", "--", "<!-- x -->", "a---b", `\u002d`, "ünïcødé ⚙️ 日本", "--!>", "-", ""}),
		rapid.StringMatching(`[a-z<>!&\\"-]{0,12}`),
	)
}

func genTime() *rapid.Generator[time.Time] {
	return rapid.Custom(func(t *rapid.T) time.Time {
		if rapid.IntRange(0, 9).Draw(t, "zero") == 0 {
			return time.Time{}
		}
		sec := rapid.Int64Range(0, 4102444800).Draw(t, "unix")
		return time.Unix(sec, 0).UTC()
	})
}

func genIntMap(label string) *rapid.Generator[map[Stage]int] {
	return rapid.Custom(func(t *rapid.T) map[Stage]int {
		m := rapid.MapOf(genText(), rapid.IntRange(-5, 1000)).Draw(t, label)
		if len(m) == 0 {
			return nil
		}
		out := make(map[Stage]int, len(m))
		for k, v := range m {
			out[Stage(k)] = v
		}
		return out
	})
}

func genUsage() *rapid.Generator[Usage] {
	return rapid.Custom(func(t *rapid.T) Usage {
		return Usage{
			Calls:        rapid.IntRange(0, 100).Draw(t, "calls"),
			InputTokens:  rapid.IntRange(0, 1<<30).Draw(t, "in"),
			OutputTokens: rapid.IntRange(0, 1<<30).Draw(t, "out"),
			CostUSD:      rapid.Float64Range(0, 1e6).Draw(t, "usd"),
		}
	})
}

func genUsageMap(label string) *rapid.Generator[map[string]Usage] {
	return rapid.Custom(func(t *rapid.T) map[string]Usage {
		m := rapid.MapOf(genText(), genUsage()).Draw(t, label)
		if len(m) == 0 {
			return nil
		}
		return m
	})
}

func nilIfEmpty[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

func genSnapshot() *rapid.Generator[Snapshot] {
	stage := rapid.SampledFrom(append([]Stage{""}, AllStages()...))
	return rapid.Custom(func(t *rapid.T) Snapshot {
		s := NewSnapshot(genText().Draw(t, "repo"), rapid.IntRange(0, 1<<20).Draw(t, "work item"))
		s.Stage = stage.Draw(t, "stage")
		s.CurrentSWI = genText().Draw(t, "current swi")
		s.Attempts = genIntMap("attempts").Draw(t, "attempts")
		if rapid.Bool().Draw(t, "locked") {
			s.Lock = &LockRecord{Owner: genText().Draw(t, "owner"), Acquired: genTime().Draw(t, "acquired")}
		}
		s.Artifacts = Artifacts{
			SpecBranch:      genText().Draw(t, "spec branch"),
			SpecPR:          rapid.IntRange(0, 9999).Draw(t, "spec pr"),
			InterfaceBranch: genText().Draw(t, "if branch"),
			InterfacePR:     rapid.IntRange(0, 9999).Draw(t, "if pr"),
		}
		if rapid.Bool().Draw(t, "classified") {
			s.Classification = &classify.Classification{
				Type:            classify.Type(genText().Draw(t, "type")),
				AffectedModules: rapid.SliceOfN(genText(), 0, 3).Draw(t, "modules"),
				EstimatedScope: classify.Scope{Files: rapid.IntRange(0, 99).Draw(t, "files"),
					Interfaces: rapid.IntRange(0, 9).Draw(t, "ifs"), Complexity: genText().Draw(t, "complexity")},
				SafetyAffecting: rapid.Bool().Draw(t, "safety"),
				Rationale:       genText().Draw(t, "rationale"),
			}
			if rapid.Bool().Draw(t, "nil modules") {
				s.Classification.AffectedModules = nil
			}
		}
		s.Ledger = Ledger{PerStage: genUsageMap("per stage").Draw(t, "per stage")}
		s.Approvals = nilIfEmpty(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Approval {
			return Approval{Stage: stage.Draw(t, "stage"), SWI: genText().Draw(t, "swi"), By: genText().Draw(t, "by"),
				At: genTime().Draw(t, "at"), Via: ApprovalSource(genText().Draw(t, "via")), CommentID: rapid.Int64Range(0, 1<<40).Draw(t, "comment")}
		}), 0, 3).Draw(t, "approvals"))
		if rapid.Bool().Draw(t, "stopped") {
			s.Stopped = &StopRecord{By: genText().Draw(t, "stopped by"), At: genTime().Draw(t, "stopped at"),
				CommentID: rapid.Int64Range(0, 1<<40).Draw(t, "stop comment")}
		}
		s.CommandsSeen = rapid.Int64Range(0, 1<<40).Draw(t, "commands seen")
		if rapid.Bool().Draw(t, "gated") {
			s.Gate = &GateRecord{Stage: stage.Draw(t, "gate stage"), SWI: genText().Draw(t, "gate swi"),
				Since: genTime().Draw(t, "since"), Reason: genText().Draw(t, "reason")}
		}
		if rapid.Bool().Draw(t, "failed") {
			s.Failure = &FailureRecord{Stage: stage.Draw(t, "failure stage"), SWI: genText().Draw(t, "failure swi"),
				Reason: genText().Draw(t, "failure reason"), At: genTime().Draw(t, "failure at")}
		}
		s.Interfaces = nilIfEmpty(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) InterfaceDecl {
			return InterfaceDecl{ID: genText().Draw(t, "id"), Name: genText().Draw(t, "name"),
				File: genText().Draw(t, "file"), Summary: genText().Draw(t, "summary")}
		}), 0, 3).Draw(t, "interfaces"))
		if h := rapid.MapOf(genText(), rapid.SliceOfN(rapid.Bool(), 0, 4)).Draw(t, "history"); len(h) > 0 {
			s.ScenarioHistory = h
		}
		s.SubWorkItems = nilIfEmpty(rapid.SliceOfN(genSWI(), 0, 4).Draw(t, "sub-work-items"))
		s.Revisions = nilIfEmpty(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) RevisionRecord {
			return RevisionRecord{PR: rapid.IntRange(1, 9999).Draw(t, "pr"), Cycle: rapid.IntRange(0, 9).Draw(t, "cycle"),
				Action: RevisionAction(genText().Draw(t, "action")), Commit: genText().Draw(t, "commit"),
				Threads: rapid.IntRange(0, 9).Draw(t, "threads"), Reason: genText().Draw(t, "reason"), At: genTime().Draw(t, "at")}
		}), 0, 2).Draw(t, "revisions"))
		return s
	})
}

func genSWI() *rapid.Generator[SWI] {
	return rapid.Custom(func(t *rapid.T) SWI {
		var usage Usage
		if rapid.Bool().Draw(t, "costed") {
			usage = Usage{Calls: rapid.IntRange(0, 99).Draw(t, "calls"), InputTokens: rapid.IntRange(0, 1<<20).Draw(t, "in"),
				OutputTokens: rapid.IntRange(0, 1<<20).Draw(t, "out"), CostUSD: float64(rapid.IntRange(0, 1e6).Draw(t, "micro")) / 1e6}
		}
		return SWI{
			SubWorkItem: planner.SubWorkItem{ID: genText().Draw(t, "id"), Title: genText().Draw(t, "title"),
				Description: genText().Draw(t, "description"), Files: rapid.SliceOfN(genText(), 0, 2).Draw(t, "files"),
				Interfaces: rapid.SliceOfN(genText(), 0, 2).Draw(t, "ifaces"), Tests: genText().Draw(t, "tests"),
				DependsOn: rapid.SliceOfN(genText(), 0, 2).Draw(t, "deps")},
			Issue: rapid.IntRange(0, 9999).Draw(t, "issue"), Order: rapid.IntRange(0, 50).Draw(t, "order"),
			Status: SWIStatus(genText().Draw(t, "status")), Branch: genText().Draw(t, "branch"), PR: rapid.IntRange(0, 9999).Draw(t, "pr"),
			Attempts:          genIntMap("swi attempts").Draw(t, "swi attempts"),
			RemediationCycles: rapid.IntRange(0, 9).Draw(t, "cycles"),
			Usage:             usage,
			Feedback:          genText().Draw(t, "feedback"),
			Committed:         nilIfEmpty(rapid.SliceOfN(genText(), 0, 3).Draw(t, "committed")),
			Findings: nilIfEmpty(rapid.SliceOfN(rapid.Custom(func(t *rapid.T) review.Finding {
				return review.Finding{File: genText().Draw(t, "file"), Line: rapid.IntRange(0, 999).Draw(t, "line"),
					Severity: finding.Severity(genText().Draw(t, "severity")), Criterion: genText().Draw(t, "criterion"),
					Explanation: genText().Draw(t, "explanation")}
			}), 0, 2).Draw(t, "findings")),
		}
	})
}

func TestSnapshotRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot().Draw(t, "snapshot")
		block, err := RenderSnapshot(s)
		require.NoError(t, err)
		inner := strings.TrimSuffix(strings.TrimPrefix(block, snapshotOpen), snapshotClose)
		require.NotContains(t, inner, "--")
		require.NotContains(t, inner, ">")

		prefix := genText().Draw(t, "text before")
		if strings.Contains(prefix, snapshotOpen) {
			prefix = ""
		}
		got, found, err := ParseSnapshot(prefix + "\n" + block + "\n" + genText().Draw(t, "text after"))
		require.NoError(t, err)
		require.True(t, found)
		require.Equal(t, s, got)
	})
}

// A 4.0.0 snapshot (before SWI.TestNotes) reads as it was, and the next
// write is the current minor; test notes round-trip.
func TestParseSnapshotReadsTheOlderMinor(t *testing.T) {
	got, found, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"4.0.0","repo":"a/b","work_item":3,"sub_work_items":[{"id":"s1","title":"","description":"","files":null,"symbols":null,"interfaces":null,"tests":"","depends_on":null,"issue":5,"order":1,"status":"completed"}]} -->`)
	require.NoError(t, err)
	require.True(t, found)
	require.Len(t, got.SubWorkItems, 1)
	assert.Empty(t, got.SubWorkItems[0].TestNotes)

	got.SchemaVersion = SchemaVersion
	got.SubWorkItems[0].TestNotes = []string{"TestFlaky passed on a re-run"}
	body, err := RenderSnapshot(got)
	require.NoError(t, err)
	assert.Contains(t, body, `"schema_version":"`+SchemaVersion+`"`)
	again, _, err := ParseSnapshot(body)
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

// A 4.1.0 snapshot (before Seq, Labeled and the kept issue texts) reads as
// sequence 0 with no text kept; the 4.2 fields round-trip.
func TestParseSnapshotReads41AsSequenceZero(t *testing.T) {
	got, found, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"4.1.0","repo":"a/b","work_item":3,"stage":"architecture","gate":{"stage":"architecture","since":"2026-01-02T03:04:05Z"},"pin":{"sha256":"ab","by":"alice","at":"2026-01-02T03:04:05Z","via":"label"}} -->`)
	require.NoError(t, err)
	require.True(t, found)
	assert.Zero(t, got.Seq)
	assert.Empty(t, got.Labeled)
	assert.Nil(t, got.Pin.Text)
	assert.Nil(t, got.Gate.Text)

	got.SchemaVersion = SchemaVersion
	got.Seq, got.Labeled = 7, StageIntake
	got.Pin.Text = NewIssueText("t", "b")
	got.Gate.Text, got.Gate.Refused = NewIssueText("t", "edited"), true
	got.Approvals = []Approval{{Stage: StageArchitecture, By: "alice", Via: "label", EventID: 9, Refused: "changed"}}
	body, err := RenderSnapshot(got)
	require.NoError(t, err)
	again, _, err := ParseSnapshot(body)
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

func TestNewIssueTextKeepsOnlyShortText(t *testing.T) {
	short := NewIssueText("t", "body")
	assert.Equal(t, IssueText{SHA256: IssueDigest("t", "body"), Title: "t", Body: "body"}, *short)
	long := NewIssueText("t", strings.Repeat("x", MaxKeptText))
	assert.True(t, long.Omitted)
	assert.Empty(t, long.Body)
	assert.Equal(t, IssueDigest("t", strings.Repeat("x", MaxKeptText)), long.SHA256)
}

// A 4.4.0 snapshot (before Restacks) reads as one with no restack
// recorded, and a 4.5 one keeps its records; a build that does not know
// the field (4.4) reads the 4.5 block and only drops it.
func TestParseSnapshotReads44WithoutRestacks(t *testing.T) {
	got, found, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"4.4.0","repo":"a/b","work_item":3,"stage":"complete","revisions":[{"pr":7,"cycle":1,"action":"revised","at":"2026-01-02T03:04:05Z"}]} -->`)
	require.NoError(t, err)
	require.True(t, found)
	assert.Empty(t, got.Restacks)
	require.Len(t, got.Revisions, 1)

	got.SchemaVersion = SchemaVersion
	at := time.Date(2026, 1, 3, 4, 5, 6, 0, time.UTC)
	got.RecordRestack(RestackRecord{PR: 9, Action: RestackUpdated, At: at})
	got.RecordRestack(RestackRecord{PR: 7, Action: RestackResolved, Commit: "abc", Cycle: 1, Reason: "merge conflict in a.go", At: at})
	got.RecordRestack(RestackRecord{PR: 9, Action: RestackRetargeted, Base: "main", At: at})
	body, err := RenderSnapshot(got)
	require.NoError(t, err)
	assert.Contains(t, body, `"schema_version":"4.5.0"`)
	again, _, err := ParseSnapshot(body)
	require.NoError(t, err)
	assert.Equal(t, got, again)
	assert.Equal(t, []int{7, 9}, []int{again.Restacks[0].PR, again.Restacks[1].PR}, "one record per PR, in PR order")
	rec, ok := again.Restack(9)
	require.True(t, ok)
	assert.Equal(t, RestackRetargeted, rec.Action, "the last restack of a PR replaces its earlier one")

	// A reader without the field (the 4.4 shape) decodes the block and
	// keeps everything else.
	old := strings.Replace(body, `"schema_version":"4.5.0"`, `"schema_version":"4.4.0"`, 1)
	var v44 struct {
		SchemaVersion string           `json:"schema_version"`
		Revisions     []RevisionRecord `json:"revisions"`
	}
	block, ok := SnapshotBlock(old)
	require.True(t, ok)
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimPrefix(block, snapshotOpen), "-->")), &v44))
	assert.Len(t, v44.Revisions, 1)
}
