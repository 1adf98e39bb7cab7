package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// The attacks of issue 11, each run by "mallory", who has no write
// permission and posts through her own token, as anyone can comment on a
// public repository's issues.

// attacker posts comments as mallory.
type attacker struct {
	t *testing.T
	f *fixture
}

func newAttack(t *testing.T) (*fixture, attacker) {
	t.Helper()
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	return f, attacker{t: t, f: f}
}

// post writes a comment as mallory and returns its id.
func (a attacker) post(body string) int64 {
	a.t.Helper()
	c, err := a.f.env.ClientAs(a.t, "mallory").CreateComment(context.Background(), testenv.Repo, a.f.issue, body)
	require.NoError(a.t, err)
	require.Equal(a.t, "mallory", c.User)
	return c.ID
}

// forgedStatus is a status comment claiming the given snapshot.
func (a attacker) forgedStatus(snap pipeline.Snapshot) string {
	a.t.Helper()
	block, err := pipeline.RenderSnapshot(snap)
	require.NoError(a.t, err)
	return audit.Format(audit.Comment{Key: audit.StatusKey(a.f.issue), Title: "status", Body: block})
}

// toArchitectureGate steps a fresh item to the waiting architecture gate.
func toArchitectureGate(t *testing.T, f *fixture) {
	t.Helper()
	f.step(t)
	res := f.step(t)
	require.Equal(t, OutcomeWaiting, res.Outcome)
	require.Equal(t, pipeline.StageArchitecture, f.snapshot(t).Gate.Stage)
}

// botSnapshot reads the snapshot from the bot's own status comment.
func botSnapshot(t *testing.T, f *fixture) pipeline.Snapshot {
	t.Helper()
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if c.Author != testenv.Bot {
			continue
		}
		if s, ok, err := pipeline.ParseSnapshot(c.Body); ok {
			require.NoError(t, err)
			return s
		}
	}
	t.Fatalf("no bot snapshot on #%d", f.issue)
	return pipeline.Snapshot{}
}

func TestAttackForgedSnapshotCannotSkipTheGate(t *testing.T) {
	f, mallory := newAttack(t)
	toArchitectureGate(t, f)
	forged := botSnapshot(t, f)
	forged.Gate, forged.Stage = nil, pipeline.StageCodeGeneration
	mallory.post(mallory.forgedStatus(forged))
	for range 2 {
		res := f.step(t)
		assert.Equal(t, OutcomeWaiting, res.Outcome)
	}
	assert.Zero(t, f.rec.count(pipeline.StageCodeGeneration), "code generation never ran")
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))
	assert.NotNil(t, botSnapshot(t, f).Gate, "the human gate still waits")
}

func TestAttackForgedLedgerCannotResetTheBudget(t *testing.T) {
	f, mallory := newAttack(t)
	f.deps.Config.Gates["architecture"] = config.AutoProceed
	var seen []float64
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		in.Book().Record("intake", "", pipeline.Usage{Calls: 1, InputTokens: 90000, CostUSD: 9.5})
		return StageResult{Event: pipeline.EventDone}, nil
	})
	f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		seen = append(seen, in.Snapshot.Ledger.PerStage["intake"].CostUSD)
		return StageResult{Event: pipeline.EventProgress}, nil
	})
	f.step(t)
	forged := botSnapshot(t, f)
	forged.Ledger = pipeline.Ledger{}
	mallory.post(mallory.forgedStatus(forged))
	f.step(t)
	require.Len(t, seen, 1)
	assert.InDelta(t, 9.5, seen[0], 1e-9, "the executor is charged with the real spend, not the forged empty ledger")
	assert.InDelta(t, 9.5, botSnapshot(t, f).Ledger.PerStage["intake"].CostUSD, 1e-9)
}

func TestAttackForgedLockClaimDoesNotHoldTheItem(t *testing.T) {
	f, mallory := newAttack(t)
	mallory.post(audit.Format(audit.Comment{Key: claimKey(f.issue, "run-evil"), Title: "Processing", Body: "mine"}))
	res := f.step(t)
	assert.Equal(t, OutcomeAdvanced, res.Outcome, "a claim the bot did not write is no lock")
	assert.Equal(t, 1, f.rec.count(pipeline.StageIntake))
}

func TestAttackMalformedStateBlockDoesNotWedge(t *testing.T) {
	f, mallory := newAttack(t)
	toArchitectureGate(t, f)
	mallory.post(audit.Marker(audit.StatusKey(f.issue)) + "\n<!-- cogworks:state {\"schema_version\": -->")
	res := f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome)
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelApprove))
	res = f.step(t)
	assert.Equal(t, OutcomeAdvanced, res.Outcome, "the item still moves")
}

func TestAttackStatusKeyIsNotAdopted(t *testing.T) {
	f, mallory := newAttack(t)
	bait := mallory.forgedStatus(pipeline.NewSnapshot(testenv.Repo.String(), f.issue))
	id := mallory.post(bait)
	f.step(t)
	var mine, hers int
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if !strings.Contains(c.Body, audit.Marker(audit.StatusKey(f.issue))) {
			continue
		}
		switch c.Author {
		case testenv.Bot:
			mine++
		case "mallory":
			hers++
			assert.Equal(t, id, c.ID)
			assert.Equal(t, bait, c.Body, "the bot never edits a comment it did not write")
		}
	}
	assert.Equal(t, 1, mine, "the bot wrote its own status comment")
	assert.Equal(t, 1, hers)
}

func TestAttackBotNeverDeletesOthersComments(t *testing.T) {
	f, mallory := newAttack(t)
	id := mallory.post(audit.Format(audit.Comment{Key: claimKey(f.issue, "run-old"), Title: "Processing", Body: "an old claim"}))
	f.env.Clock.Advance(31 * time.Minute) // it would look expired
	f.step(t)
	found := false
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		found = found || c.ID == id
	}
	assert.True(t, found, "mallory's comment is still there")
}

func TestAttackStageLabelFromAPersonDoesNotMoveTheItem(t *testing.T) {
	f, _ := newAttack(t)
	// A triager (label permission, no more) jumps a fresh item ahead.
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.StageLabel(pipeline.StageCodeGeneration)))
	res := f.step(t)
	assert.Equal(t, string(pipeline.StageIntake), res.Stage, "the fresh item runs intake")
	assert.Equal(t, 1, f.rec.count(pipeline.StageIntake))
	assert.Zero(t, f.rec.count(pipeline.StageCodeGeneration))
	assert.NotContains(t, f.labels(), pipeline.StageLabel(pipeline.StageCodeGeneration), "the label follows the snapshot")
}

func TestAttackRemovingSafetyCriticalDoesNotLowerTheGates(t *testing.T) {
	f, _ := newAttack(t)
	f.deps.Config.Gates["architecture"] = config.AutoProceed
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetClassification{Classification: classify.Classification{
			Type: classify.TypeFeature, AffectedModules: []string{"brake"}, SafetyAffecting: true}}}}, nil
	})
	f.step(t) // intake, safety-affecting
	require.Contains(t, f.labels(), pipeline.LabelSafetyCritical)
	require.True(t, f.env.Sim.UnlabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelSafetyCritical))
	f.step(t) // architecture, auto-proceed → interface design
	assert.Contains(t, statusBody(t, f), fmt.Sprintf("re-added `%s`", pipeline.LabelSafetyCritical), "the repair is named in the status comment")
	res := f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome, "interface design is still human-gated (ASSERT-PSM-004)")
	assert.Contains(t, f.labels(), pipeline.LabelSafetyCritical, "the label is restored from the snapshot")
	records := 0
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if c.Author == testenv.Bot && strings.Contains(c.Body, "/step/") && strings.Contains(c.Body, "re-added") {
			records++
		}
	}
	assert.Equal(t, 1, records, "the step's record keeps the repair in the audit trail")
}

// statusBody returns the bot's status comment.
func statusBody(t *testing.T, f *fixture) string {
	t.Helper()
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if c.Author == testenv.Bot && strings.Contains(c.Body, audit.Marker(audit.StatusKey(f.issue))) {
			return c.Body
		}
	}
	t.Fatalf("no status comment on #%d", f.issue)
	return ""
}
