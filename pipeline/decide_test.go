package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDecide(t *testing.T) {
	gate := &GateRecord{Stage: StageArchitecture}
	tests := []struct {
		name     string
		obs      Observation
		decision Decision
		action   Action
		stage    Stage
	}{
		{"not triggered", Observation{}, DecisionNotTriggered, "", ""},
		{"fresh enters intake", Observation{Labels: LabelSet{Run: true}}, DecisionRun, ActionExecute, StageIntake},
		{"fresh lock backs off", Observation{Labels: LabelSet{Run: true}, Lock: LockFresh}, DecisionBackedOff, "", ""},
		{"stale lock runs", Observation{Labels: LabelSet{Run: true, Processing: true}, Lock: LockStale}, DecisionRun, ActionExecute, StageIntake},
		{"label stage without snapshot resumes", Observation{Labels: LabelSet{Run: true, Stages: []Stage{StagePlanning}}}, DecisionRun, ActionExecute, StagePlanning},
		{"snapshot wins over labels", Observation{Labels: LabelSet{Run: true, Stages: []Stage{StageIntake}}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageReview}}, DecisionRun, ActionExecute, StageReview},
		{"complete is terminal", Observation{Labels: LabelSet{Run: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageComplete}}, DecisionTerminal, "", StageComplete},
		{"failed is terminal", Observation{Labels: LabelSet{Run: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageFailed}}, DecisionTerminal, "", StageFailed},
		{"failed with retry resumes", Observation{Labels: LabelSet{Run: true, Retry: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageFailed}}, DecisionRun, ActionRetry, StageFailed},
		{"gate waits", Observation{Labels: LabelSet{Run: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageArchitecture, Gate: gate}}, DecisionWaiting, "", StageArchitecture},
		{"approved gate passes", Observation{Labels: LabelSet{Run: true, Approve: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageArchitecture, Gate: gate}, Approval: ApprovalVerdict{Approved: true, By: "alice"}}, DecisionRun, ActionPassGate, StageArchitecture},
		{"stopped waits", Observation{Labels: LabelSet{Run: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageReview, Stopped: &StopRecord{By: "alice"}}}, DecisionWaiting, "", StageReview},
		{"stopped at a gate waits even when approved", Observation{Labels: LabelSet{Run: true}, HasSnapshot: true, Snapshot: Snapshot{Stage: StageArchitecture, Gate: gate, Stopped: &StopRecord{By: "alice"}}, Approval: ApprovalVerdict{Approved: true, By: "bob"}}, DecisionWaiting, "", StageArchitecture},
		{"stopped without the run label is not triggered", Observation{HasSnapshot: true, Snapshot: Snapshot{Stage: StageReview, Stopped: &StopRecord{By: "alice"}}}, DecisionNotTriggered, "", ""},
		{"locked beats waiting", Observation{Labels: LabelSet{Run: true}, Lock: LockFresh, HasSnapshot: true, Snapshot: Snapshot{Stage: StageArchitecture, Gate: gate}}, DecisionBackedOff, "", StageArchitecture},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Decide(tt.obs)
			assert.Equal(t, tt.decision, v.Decision)
			assert.Equal(t, tt.action, v.Action)
			if tt.stage != "" {
				assert.Equal(t, tt.stage, v.Stage)
			}
			assert.NotEmpty(t, v.Reason)
		})
	}
}

func TestAssertPSM004_SafetyCriticalOverridesAutoProceed(t *testing.T) {
	p := GatePolicy{Modes: map[string]GateMode{
		"intake": AutoProceed, "architecture": AutoProceed, "interface-design": AutoProceed,
		"planning": AutoProceed, "integration": AutoProceed,
	}}
	for _, s := range AllStages() {
		if GateKey(s) == "" {
			continue
		}
		t.Run(string(s), func(t *testing.T) {
			assert.Equal(t, AutoProceed, p.Mode(s, false), "configured mode applies when not safety-critical")
			want := AutoProceed
			if s.CodeProducing() || s == StageReview {
				want = HumanGated
			}
			assert.Equal(t, want, p.Mode(s, true))
		})
	}
	assert.Equal(t, HumanGated, p.Mode(StageInterfaceDesign, true))
	assert.Equal(t, HumanGated, p.Mode(StageReview, true), "the gate before integration guards code")
	assert.Equal(t, AutoProceed, p.Mode(StageIntake, true), "non-code stages keep their configuration")
}

func TestGateKey(t *testing.T) {
	assert.Equal(t, "architecture", GateKey(StageArchitecture))
	assert.Equal(t, "integration", GateKey(StageReview))
	assert.Equal(t, "", GateKey(StageCodeGeneration))
	assert.Equal(t, "", GateKey(StageComplete))
	assert.Equal(t, HumanGated, GatePolicy{Modes: map[string]GateMode{"architecture": HumanGated}}.Mode(StageArchitecture, false))
	assert.Equal(t, AutoProceed, GatePolicy{}.Mode(StageArchitecture, false), "unconfigured gates auto-proceed")
}

func TestEvaluateLabelApproval(t *testing.T) {
	perms := map[string]string{"alice": "maintain", "bob": "write", "root": "admin", "mallory": "read", "tri": "triage"}
	ev := func(id int64, action, actor string) LabelEvent {
		return LabelEvent{ID: id, Action: action, Label: LabelApprove, Actor: actor}
	}
	tests := []struct {
		name     string
		present  bool
		events   []LabelEvent
		used     []int64
		approved bool
		by       string
		rejected []string
		stale    bool
	}{
		{"no label", false, []LabelEvent{ev(1, "labeled", "alice")}, nil, false, "", nil, false},
		{"maintainer approves", true, []LabelEvent{ev(1, "labeled", "alice")}, nil, true, "alice", nil, false},
		{"writer approves", true, []LabelEvent{ev(1, "labeled", "bob")}, nil, true, "bob", nil, false},
		{"admin approves", true, []LabelEvent{ev(1, "labeled", "root")}, nil, true, "root", nil, false},
		{"read-only is rejected", true, []LabelEvent{ev(1, "labeled", "mallory")}, nil, false, "", []string{"mallory (read)"}, false},
		{"triage is rejected", true, []LabelEvent{ev(1, "labeled", "tri")}, nil, false, "", []string{"tri (triage)"}, false},
		{"stranger is rejected", true, []LabelEvent{ev(1, "labeled", "eve")}, nil, false, "", []string{"eve (none)"}, false},
		{"bot never approves", true, []LabelEvent{ev(1, "labeled", "cogworks[bot]")}, nil, false, "", []string{"cogworks[bot] (CogWorks itself)"}, false},
		{"latest application counts", true, []LabelEvent{ev(1, "labeled", "alice"), ev(2, "unlabeled", "alice"), ev(3, "labeled", "mallory")}, nil, false, "", []string{"mallory (read)"}, false},
		{"used event is stale", true, []LabelEvent{ev(1, "labeled", "alice")}, []int64{1}, false, "", nil, true},
		{"fresh event after a used one", true, []LabelEvent{ev(1, "labeled", "alice"), ev(5, "labeled", "bob")}, []int64{1}, true, "bob", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := EvaluateLabelApproval(tt.present, tt.events, perms, "cogworks[bot]", tt.used)
			assert.Equal(t, tt.approved, v.Approved)
			assert.Equal(t, tt.by, v.By)
			assert.Equal(t, tt.rejected, v.Rejected)
			assert.Equal(t, tt.stale, v.Stale)
		})
	}
	assert.Equal(t, []string{"mallory"}, ApprovalActors([]LabelEvent{ev(1, "labeled", "alice"), ev(2, "labeled", "mallory")}))
	assert.Nil(t, ApprovalActors(nil))
}

func TestLockPolicy(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p := LockPolicy{Timeout: 30 * time.Minute}
	fresh := LockClaim{CommentID: 20, Owner: "b", At: now.Add(-time.Minute)}
	older := LockClaim{CommentID: 10, Owner: "a", At: now.Add(-2 * time.Minute)}
	expired := LockClaim{CommentID: 5, Owner: "dead", At: now.Add(-31 * time.Minute)}

	var unknown time.Time
	recent, old := now.Add(-time.Minute), now.Add(-31*time.Minute)
	assert.Equal(t, LockFree, p.Evaluate(false, unknown, nil, now))
	assert.Equal(t, LockFresh, p.Evaluate(true, recent, nil, now), "a bare label applied a minute ago is a lock (ASSERT-PSM-005)")
	assert.Equal(t, LockStale, p.Evaluate(true, old, nil, now), "a bare label older than the timeout: a killed run")
	assert.Equal(t, LockStale, p.Evaluate(true, unknown, nil, now), "a label of unknown age is taken over")
	assert.Equal(t, LockStale, p.Evaluate(true, old, []LockClaim{expired}, now))
	assert.Equal(t, LockFresh, p.Evaluate(true, old, []LockClaim{fresh}, now))
	assert.Equal(t, LockFresh, p.Evaluate(false, unknown, []LockClaim{fresh}, now), "a claim counts even before the label shows")

	w, ok := p.Winner([]LockClaim{fresh, expired, older}, now)
	assert.True(t, ok)
	assert.Equal(t, "a", w.Owner, "lowest live comment id wins; expired claims are ignored")
	_, ok = p.Winner([]LockClaim{expired}, now)
	assert.False(t, ok)
}
