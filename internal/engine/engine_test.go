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
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestAssertPSM001_FreshWorkItemEntersIntake(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		f.rec.note(in.Stage)
		return StageResult{Event: pipeline.EventProgress, Summary: "classifying"}, nil
	})
	res := f.step(t)

	assert.Equal(t, 1, f.rec.count(pipeline.StageIntake), "the classifier runs")
	assert.Contains(t, f.labels(), "cogworks:stage:intake")
	assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "lock released")
	assert.Equal(t, OutcomeAdvanced, res.Outcome)
	assert.Equal(t, pipeline.StageIntake, f.snapshot(t).Stage)
}

func TestAssertPSM002_CompletedStageAdvancesToNextStage(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	f.step(t) // intake → architecture (auto)
	f.step(t) // architecture done → gate waits
	require.Contains(t, f.labels(), pipeline.LabelAwaitingReview)

	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelApprove))
	res := f.step(t)

	assert.Equal(t, 1, f.rec.count(pipeline.StageInterfaceDesign), "stage N+1 executor invoked")
	labels := f.labels()
	assert.Contains(t, labels, "cogworks:stage:planning", "interface-design auto-proceeds to planning")
	assert.NotContains(t, labels, "cogworks:stage:architecture", "stage N label replaced")
	assert.NotContains(t, labels, pipeline.LabelAwaitingReview)
	assert.NotContains(t, labels, pipeline.LabelApprove, "approval consumed")
	assert.Equal(t, string(pipeline.StageInterfaceDesign), res.Stage)
	snap := f.snapshot(t)
	require.Len(t, snap.Approvals, 1)
	assert.Equal(t, "alice", snap.Approvals[0].By)
	assert.Equal(t, pipeline.StageArchitecture, snap.Approvals[0].Stage)
}

func TestAssertPSM003_HumanGatedStageWaitsForApproval(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	f.step(t)
	res := f.step(t)
	require.Equal(t, OutcomeWaiting, res.Outcome)

	f.env.Sim.ResetRequests()
	res = f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome)
	assert.Equal(t, 0, writes(f.env.Sim), "waiting makes no writes")
	assert.Contains(t, f.labels(), pipeline.LabelAwaitingReview)
	assert.Contains(t, f.labels(), "cogworks:stage:architecture")
	assert.Equal(t, 1, f.rec.count(pipeline.StageArchitecture))
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))

	// A read-only user's approval does not pass the gate: it is removed
	// and reported, so that a maintainer can apply the label afresh.
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "mallory", pipeline.LabelApprove))
	res = f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome)
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))
	assert.NotContains(t, f.labels(), pipeline.LabelApprove)
	var status string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, audit.Marker(audit.StatusKey(f.issue))) {
			status = c.Body
		}
	}
	assert.Contains(t, status, "mallory (read)")

	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelApprove))
	f.step(t)
	assert.Equal(t, 1, f.rec.count(pipeline.StageInterfaceDesign), "the maintainer's fresh label passes the gate")
}

func TestAssertPSM004_SafetyCriticalForcesHumanGates(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetClassification{Classification: classify.Classification{
			Type: classify.TypeFeature, AffectedModules: []string{"brake"}, SafetyAffecting: true}}}}, nil
	})
	require.Equal(t, config.AutoProceed, f.deps.Config.GateMode("interface-design"))
	f.step(t) // intake
	f.step(t) // architecture (auto in this fixture; not code-producing)
	res := f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome, "interface-design is code-producing: human-gated despite auto-proceed")
	assert.Contains(t, f.labels(), pipeline.LabelSafetyCritical)
	assert.Contains(t, f.labels(), pipeline.LabelAwaitingReview)
}

func TestAssertPSM005_LockBacksOff(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	// Another run holds a fresh lock: label plus its claim comment.
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "cogworks[bot]", pipeline.LabelProcessing))
	_, err := f.env.Client.CreateComment(context.Background(), testenv.Repo, f.issue,
		audit.Format(audit.Comment{Key: claimKey(f.issue, "run-other"), Title: "Processing", Body: "held"}))
	require.NoError(t, err)
	f.env.Sim.ResetRequests()

	res := f.step(t)
	assert.Equal(t, OutcomeBackedOff, res.Outcome)
	assert.Equal(t, 0, writes(f.env.Sim), "a fresh lock makes an invocation do zero writes")
	assert.LessOrEqual(t, res.GitHubRequests, int64(2))
	assert.Zero(t, f.rec.count(pipeline.StageIntake))

	t.Run("stale lock is taken over", func(t *testing.T) {
		f.env.Clock.Advance(31 * time.Minute)
		res := f.step(t)
		assert.Equal(t, OutcomeAdvanced, res.Outcome)
		assert.Equal(t, 1, f.rec.count(pipeline.StageIntake))
		assert.NotContains(t, f.labels(), pipeline.LabelProcessing)
		assert.Zero(t, commentsWithKey(f.env.Sim, f.issue, claimKey(f.issue, "run-other")), "stale claim removed")
	})
}

func TestAssertPSM006_FailedStageReportsAndHalts(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{}, &escalation.Error{Reason: "scope of 90 files exceeds the limit of 40", Attempts: []escalation.Attempt{
			{N: 1, Summary: "estimated 90 files", Diagnostics: []string{"max_scope_files = 40"}},
		}}
	})
	res, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.True(t, isFailed(err))
	assert.Equal(t, OutcomeFailed, res.Outcome)
	labels := f.labels()
	assert.Contains(t, labels, "cogworks:stage:failed")
	assert.NotContains(t, labels, "cogworks:stage:intake")
	assert.NotContains(t, labels, pipeline.LabelProcessing, "lock released on the failure path")

	var report string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, audit.Marker(audit.FailureKey(f.issue, "intake"))) {
			report = c.Body
		}
	}
	require.NotEmpty(t, report, "structured failure report posted")
	assert.Contains(t, report, "scope of 90 files exceeds the limit of 40")
	assert.Contains(t, report, "estimated 90 files")
	assert.Contains(t, report, "max_scope_files = 40")

	// The step function halts: further steps are terminal and write nothing.
	f.env.Sim.ResetRequests()
	res = f.step(t)
	assert.Equal(t, OutcomeFailed, res.Outcome)
	assert.Zero(t, writes(f.env.Sim))

	t.Run("retry resumes at the failed stage", func(t *testing.T) {
		f.deps.Executors[pipeline.StageIntake] = f.rec.done()
		require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelRetry))
		res := f.step(t)
		assert.Equal(t, string(pipeline.StageIntake), res.Stage)
		assert.Equal(t, 1, f.rec.count(pipeline.StageIntake))
		assert.NotContains(t, f.labels(), pipeline.LabelRetry)
		assert.NotContains(t, f.labels(), "cogworks:stage:failed")
	})
}

func TestAssertPSM007_StatusCommentOnStageEntry(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.step(t) // intake runs, auto-proceeds into architecture
	var entry string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, "entered stage `architecture`") {
			entry = c.Body
		}
	}
	require.NotEmpty(t, entry, "a comment announces the new stage")
	assert.Contains(t, entry, "entered stage `intake`", "the step entered intake too")
	assert.Contains(t, entry, "intake finished", "with the summary")
	assert.Contains(t, entry, audit.Marker(audit.Key(fmt.Sprint(f.issue), "step", "run-1")), "the step's record")
}

func TestNotTriggeredIssueCostsOneRequest(t *testing.T) {
	f := newFixture(t)
	f.env.Sim.ResetRequests()
	res := f.step(t)
	assert.Equal(t, OutcomeNotTriggered, res.Outcome)
	assert.Equal(t, int64(1), res.GitHubRequests)
	assert.Zero(t, writes(f.env.Sim))
}

func TestRunStopsAtGateAndComplete(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntegration] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventAllDone, Summary: "all sub-work-items integrated"}, nil
	})
	results, err := Run(context.Background(), f.deps, f.ref(), 50)
	require.NoError(t, err)
	last := results[len(results)-1]
	assert.Equal(t, OutcomeComplete, last.Outcome)
	assert.Contains(t, f.labels(), "cogworks:stage:complete")
	assert.Len(t, results, 8, "one step per stage")

	f.env.Sim.ResetRequests()
	res := f.step(t)
	assert.Equal(t, OutcomeComplete, res.Outcome)
	assert.Zero(t, writes(f.env.Sim), "re-running a complete pipeline changes nothing")
}

func TestDryRunWritesNothing(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.DryRun = true
	f.env.Sim.ResetRequests()
	res := f.step(t)
	assert.Equal(t, StepAction("execute (dry run)"), res.Action)
	assert.Zero(t, writes(f.env.Sim))
	assert.Zero(t, f.rec.count(pipeline.StageIntake))
}

func TestNewerSnapshotSchemaIsRefused(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	snap := pipeline.NewSnapshot(testenv.Repo.String(), f.issue)
	snap.SchemaVersion = "99.0.0"
	block, err := pipeline.RenderSnapshot(snap)
	require.NoError(t, err)
	_, err = f.env.Client.CreateComment(context.Background(), testenv.Repo, f.issue,
		audit.Format(audit.Comment{Key: audit.StatusKey(f.issue), Title: "status", Hidden: block}))
	require.NoError(t, err)
	_, err = Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "99.0.0")
	assert.Zero(t, f.rec.count(pipeline.StageIntake), "nothing runs")
	assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
	assert.Zero(t, commentsWithKey(f.env.Sim, f.issue, claimKey(f.issue, "run-1")), "the claim is withdrawn")
}

func TestAuditEventsPostedPerStep(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(ctx context.Context, in StageInput) (StageResult, error) {
		audit.Record(ctx, audit.Event{Kind: audit.KindLLMCall, Stage: string(in.Stage), Summary: "LLM classify · model m · input abc"})
		return StageResult{Event: pipeline.EventDone}, nil
	})
	f.step(t)
	f.deps.RunID = "run-2"
	f.step(t)
	var bodies []string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, "LLM classify") {
			bodies = append(bodies, c.Body)
		}
	}
	require.Len(t, bodies, 1, "one record per step")
	assert.Contains(t, bodies[0], audit.Marker(audit.Key(fmt.Sprint(f.issue), "step", "run-1")), "the run's claim became its record")
	assert.Contains(t, bodies[0], "entered stage `intake`", "the stage entry is part of the record (ASSERT-PSM-007)")
	assert.Contains(t, bodies[0], "intake → architecture", "the transition is an event too")
	assert.NotContains(t, bodies[0], "holds the processing lock")
}

func TestConflictingStageLabelsWithoutSnapshotResumeAtTheMostAdvanced(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	for _, l := range []string{"cogworks:stage:intake", "cogworks:stage:planning"} {
		require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, testenv.Bot, l))
	}
	res := f.step(t)
	assert.Equal(t, string(pipeline.StagePlanning), res.Stage)
	assert.Equal(t, 1, f.rec.count(pipeline.StagePlanning))
	assert.Zero(t, f.rec.count(pipeline.StageIntake), "no restart at intake")
	labels := f.labels()
	assert.Contains(t, labels, "cogworks:stage:code-generation")
	assert.NotContains(t, labels, "cogworks:stage:intake")
	assert.NotContains(t, labels, "cogworks:stage:planning")
}

// outage is an error that says a later invocation may succeed, as an LLM
// provider's 5xx after the gateway's own retries does.
type outage struct{}

func (outage) Error() string   { return "provider: HTTP 503 (transient)" }
func (outage) Transient() bool { return true }

func TestTransientFailureRetriesAcrossInvocationsThenFails(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Budgets.StageMaxRetries = 2
	calls := 0
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		calls++
		return StageResult{}, fmt.Errorf("classify: %w", outage{})
	})
	for i := 1; i <= 2; i++ {
		res, err := Step(context.Background(), f.deps, f.ref())
		require.Error(t, err)
		assert.True(t, isTransient(err), "exit 1, not a failed pipeline")
		assert.Equal(t, OutcomeRetrying, res.Outcome)
		snap := f.snapshot(t)
		assert.Equal(t, pipeline.StageIntake, snap.Stage, "the stage stays")
		assert.Equal(t, i, snap.TransientFailures["intake"], "counted in the snapshot across invocations")
		assert.NotContains(t, f.labels(), "cogworks:stage:failed")
		assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
	}
	res, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.True(t, isFailed(err), "past stage_max_retries the pipeline fails")
	assert.Equal(t, OutcomeFailed, res.Outcome)
	assert.Contains(t, f.labels(), "cogworks:stage:failed")
	assert.Equal(t, 3, calls)
}

func TestTransientFailureCountResetsOnSuccess(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	fail := true
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		if fail {
			return StageResult{}, outage{}
		}
		return StageResult{Event: pipeline.EventDone}, nil
	})
	_, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	fail = false
	res := f.step(t)
	assert.Equal(t, OutcomeAdvanced, res.Outcome)
	assert.Empty(t, f.snapshot(t).TransientFailures)
	assert.Equal(t, 1, f.snapshot(t).Attempts["intake"], "an outage is not an attempt")
}
