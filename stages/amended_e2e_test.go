package stages_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages/planning"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The amended-specification tests drive whole steps (engine.Run) on the
// simulator: the real planning executor and re-planner (scripted LLM),
// and per-SWI stages that build each sub-work-item as a branch and a PR
// of the bot's, so that a re-plan can be seen to leave the others alone.

// amendFixture is a work item whose spec PR is open and whose plan has
// three sub-work-items, a, b and c.
type amendFixture struct {
	*stagetest.FHFixture
	ref engine.Ref
	// unwatched leaves the default branch unwatched (Replanner.Default
	// nil), to measure what the watch costs.
	unwatched bool
}

// amendedSpec is the specification as the maintainer amends it.
const amendedSpec = "# Spec\n\n## Summary\n\nHourly counter, reset at midnight.\n"

func amendItems(bTitle string) planner.Plan {
	b := stagetest.Item("b", []string{"IF-2"})
	b.Title = bTitle
	return planner.Plan{SubWorkItems: []planner.SubWorkItem{stagetest.Item("a", []string{"IF-1"}), b, stagetest.Item("c", nil)}}
}

func newAmendFixture(t *testing.T, edits ...func(*pipeline.Snapshot)) *amendFixture {
	t.Helper()
	f := &amendFixture{FHFixture: stagetest.NewFHFixture(t, nil)}
	f.ref = engine.Ref{Repo: testenv.Repo, Issue: f.Issue}
	f.Cfg.Gates["planning"] = config.AutoProceed
	f.Cfg.Gates["integration"] = config.AutoProceed
	ctx := context.Background()
	snap := f.PlanningSnapshot(t)
	snap.Stage = pipeline.StagePlanning
	snap.Artifacts.InterfaceBranch = "main"
	for _, edit := range edits {
		edit(snap)
	}
	status, err := audit.StatusComment(*snap, pipeline.StateMachine(), audit.StatusOptions{})
	require.NoError(t, err)
	_, err = f.Env.Client.CreateComment(ctx, testenv.Repo, f.Issue, status)
	require.NoError(t, err)
	require.NoError(t, f.Env.Client.AddLabels(ctx, testenv.Repo, f.Issue, pipeline.StageLabel(pipeline.StagePlanning)))
	require.True(t, f.Env.Sim.LabelIssue(testenv.Repo.String(), f.Issue, "alice", pipeline.LabelRun))
	f.AddJSON(t, prompts.Planning, amendItems("Item b"))
	return f
}

// deps are the engine's deps over a client of its own (no file cache
// across steps, as in separate invocations), transport nil for the
// default.
func (f *amendFixture) deps(t *testing.T, transport http.RoundTripper) engine.Deps {
	t.Helper()
	if transport == nil {
		transport = http.DefaultTransport
	}
	client := f.Env.NewClient(t, transport)
	d := f.Deps.Deps
	design := planning.NewReplanner(d, client)
	if f.unwatched {
		design.Default = nil
	}
	return engine.Deps{GitHub: client, Config: f.Cfg, BotLogin: testenv.Bot, Clock: f.Env.Clock.Now,
		RunID:     fmt.Sprintf("amend-%d", f.Env.Clock.Now().UnixNano()),
		Executors: buildExecutors(client, planning.New(d, client)),
		Design:    design}
}

func (f *amendFixture) step(t *testing.T) engine.Result {
	t.Helper()
	// Steps a minute apart, as the cron's, stay under GitHub's secondary
	// rate limit on content creation.
	f.Env.Clock.Advance(time.Minute)
	res, err := engine.Run(context.Background(), f.deps(t, nil), f.ref, 1)
	require.NoError(t, err)
	require.NotEmpty(t, res)
	return res[0]
}

// buildExecutors run planning for real and build each sub-work-item as
// one commit on its branch and a PR of the bot's; the other per-SWI
// stages pass.
func buildExecutors(gh *github.Client, plan engine.StageExecutor) map[pipeline.Stage]engine.StageExecutor {
	pass := engine.StageExecutorFunc(func(context.Context, engine.StageInput) (engine.StageResult, error) {
		return engine.StageResult{Event: pipeline.EventDone}, nil
	})
	build := engine.StageExecutorFunc(func(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
		snap := in.Snapshot
		if snap.CurrentSWI == "" { // the machine found none ready
			return engine.StageResult{Event: pipeline.EventAllDone}, nil
		}
		rec := snap.SubWorkItem(snap.CurrentSWI)
		branch := fmt.Sprintf("cogworks/%d/swi-%d", snap.WorkItem, rec.Order)
		if _, _, err := idem.WriteFiles(ctx, gh, in.Repo, idem.Commit{Branch: branch, From: "main", Message: "Build " + rec.ID,
			Files: map[string]string{rec.Files[0]: "package x\n\n// " + rec.Title + "\n"}}); err != nil {
			return engine.StageResult{}, err
		}
		pr, _, err := idem.FindOrCreatePull(ctx, gh, in.Repo, in.BotLogin, github.NewPull{Title: rec.Title, Head: branch, Base: "main", Body: "Part of #1."})
		if err != nil {
			return engine.StageResult{}, err
		}
		return engine.StageResult{Event: pipeline.EventDone, Summary: "built " + rec.ID, Changes: []pipeline.Change{
			pipeline.SetSWIStatus{ID: rec.ID, Status: pipeline.SWIInProgress},
			pipeline.SetSWICommit{ID: rec.ID, Branch: branch, Committed: rec.Files},
			pipeline.SetSWIPull{ID: rec.ID, Branch: branch, PR: pr.Number},
		}}, nil
	})
	integrate := engine.StageExecutorFunc(func(_ context.Context, in engine.StageInput) (engine.StageResult, error) {
		done := []pipeline.Change{pipeline.SetSWIStatus{ID: in.Snapshot.CurrentSWI, Status: pipeline.SWICompleted}}
		after, err := in.Snapshot.View()
		if err != nil {
			return engine.StageResult{}, err
		}
		if err := after.Apply(done...); err != nil {
			return engine.StageResult{}, err
		}
		if _, ok := after.NextSWI(); ok {
			return engine.StageResult{Event: pipeline.EventNextSWI, Changes: done}, nil
		}
		return engine.StageResult{Event: pipeline.EventAllDone, Changes: done}, nil
	})
	return map[pipeline.Stage]engine.StageExecutor{pipeline.StagePlanning: plan, pipeline.StageCodeGeneration: build,
		pipeline.StageScenarioValidation: pass, pipeline.StageReview: pass, pipeline.StageIntegration: integrate}
}

// untilBuilt steps until a and b are integrated (c waits), and returns
// the snapshot.
func (f *amendFixture) untilBuilt(t *testing.T) pipeline.Snapshot {
	t.Helper()
	for range 20 {
		f.step(t)
		snap := f.StatusSnapshot(t)
		if a, b := snap.SubWorkItem("a"), snap.SubWorkItem("b"); a != nil && b != nil &&
			a.Status == pipeline.SWICompleted && b.Status == pipeline.SWICompleted {
			require.Equal(t, pipeline.StageCodeGeneration, snap.Stage)
			return snap
		}
	}
	t.Fatal("a and b were never built")
	return pipeline.Snapshot{}
}

// amend pushes the amended specification to the open spec PR's branch, as
// a maintainer.
func (f *amendFixture) amend(t *testing.T) {
	t.Helper()
	f.Env.Sim.SeedFiles(testenv.Repo.String(), stagekit.SpecBranch(f.Issue), map[string]string{stagekit.SpecPath(f.Issue): amendedSpec})
}

// TestAmendedMergedSpecOnTheDefaultBranch: a spec PR merged to pass the
// architecture gate is watched on the default branch, where a maintainer
// edits it afterwards; the spec branch, left behind, is not read.
func TestAmendedMergedSpecOnTheDefaultBranch(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t, func(snap *pipeline.Snapshot) {
		snap.Approvals = append(snap.Approvals, pipeline.Approval{Stage: pipeline.StageArchitecture, By: "alice", Via: pipeline.ViaMerge})
	})
	repo := testenv.Repo.String()
	spec, err := f.Env.Client.GetFile(context.Background(), testenv.Repo, stagekit.SpecPath(f.Issue), stagekit.SpecBranch(f.Issue))
	require.NoError(t, err)
	f.Env.Sim.SeedFiles(repo, "main", map[string]string{stagekit.SpecPath(f.Issue): string(spec)})
	f.untilBuilt(t)
	f.Env.Sim.SeedFiles(repo, "main", map[string]string{stagekit.SpecPath(f.Issue): amendedSpec})
	res := f.step(t)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	assert.Contains(t, f.statusBody(t), "+Hourly counter, reset at midnight.")
}

// writesTo lists the write requests since the last reset that touched
// sub-work-item rec: its issue, its PR or its branch.
func (f *amendFixture) writesTo(rec pipeline.SWI) []string {
	var out []string
	for _, r := range f.Env.Sim.Requests() {
		if r.Method == http.MethodGet {
			continue
		}
		for _, n := range []int{rec.Issue, rec.PR} {
			for _, p := range []string{fmt.Sprintf("/issues/%d/", n), fmt.Sprintf("/pulls/%d/", n)} {
				if strings.Contains(r.Path+"/", p) {
					out = append(out, r.Method+" "+r.Path)
				}
			}
		}
		if strings.Contains(r.Path, rec.Branch) || strings.Contains(string(r.Body), `"`+rec.Branch+`"`) || strings.Contains(string(r.Body), "heads/"+rec.Branch) {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// writes counts the write requests since the last reset.
func (f *amendFixture) writes() int {
	n := 0
	for _, r := range f.Env.Sim.Requests() {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

// contentReads counts the contents API reads since the last reset.
func (f *amendFixture) contentReads() int {
	n := 0
	for _, r := range f.Env.Sim.Requests() {
		if r.Method == http.MethodGet && strings.Contains(r.Path, "/contents/") {
			n++
		}
	}
	return n
}

// statusBody is the status comment's text.
func (f *amendFixture) statusBody(t *testing.T) string {
	t.Helper()
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Issue) {
		if _, ok, _ := pipeline.ParseSnapshot(c.Body); ok {
			return c.Body
		}
	}
	t.Fatal("no status comment")
	return ""
}

// commentsOn counts the bot's comments on issue n whose text has s (a
// key marker: at the start).
func (f *amendFixture) commentsOn(n int, s string) int {
	count := 0
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), n) {
		if c.Author != testenv.Bot {
			continue
		}
		if strings.HasPrefix(s, "<!--") && strings.HasPrefix(c.Body, s) || !strings.HasPrefix(s, "<!--") && strings.Contains(c.Body, s) {
			count++
		}
	}
	return count
}

// TestAmendedSpecReplansOneSubWorkItem: the spec PR is amended after a
// and b were built. The next step pauses with the diff; an outsider's
// approval does nothing; a writer's re-plans: b (changed by the amended
// plan) goes back to pending and is built again, c goes on, and a's
// issue, PR and branch see no write at all from the amendment on.
func TestAmendedSpecReplansOneSubWorkItem(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	require.NotNil(t, built.Design, "planning pinned the design it planned from")
	recA, recB := *built.SubWorkItem("a"), *built.SubWorkItem("b")
	require.NotZero(t, recA.PR)

	// The watch reads each design file once per step: the spec on its
	// branch, and the two interface files (absent from the interface
	// branch and the default branch alike).
	f.amend(t)
	f.Env.Sim.ResetRequests()
	res := f.step(t)
	t.Logf("the pause: %d requests, %d writes (benchmarks/README.md)", len(f.Env.Sim.Requests()), f.writes())
	assert.Equal(t, 5, f.contentReads(), "1 for the spec, 2 for each interface file (absent from both refs)")
	assert.LessOrEqual(t, f.writes(), 5, "lock label, claim, status, record, labels (benchmarks/README.md)")
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	snap := f.StatusSnapshot(t)
	require.NotNil(t, snap.Gate)
	require.NotNil(t, snap.Amended)
	assert.Contains(t, snap.Gate.Reason, "specification or interfaces changed")
	body := f.statusBody(t)
	assert.Contains(t, body, "-Hourly counter.")
	assert.Contains(t, body, "+Hourly counter, reset at midnight.")
	assert.Equal(t, built.SubWorkItems, snap.SubWorkItems, "the pause changes no record")
	assert.Equal(t, 1, f.Requests(prompts.Planning), "no re-plan before an approval")

	// An outsider's approval does nothing but lose its label.
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "mallory", pipeline.LabelApprove))
	f.step(t)
	snap = f.StatusSnapshot(t)
	assert.NotNil(t, snap.Gate, "still waiting")
	assert.Equal(t, built.SubWorkItems, snap.SubWorkItems)
	assert.Equal(t, 1, f.Requests(prompts.Planning))
	assert.NotContains(t, f.Env.Sim.Labels(repo, f.Issue), pipeline.LabelApprove)

	// A writer's approval re-plans: the amended plan changes b only.
	f.AddJSON(t, prompts.Planning, amendItems("Item b, reset at midnight"))
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	assert.Empty(t, f.writesTo(recA), "no write to a by the pause or the refused approval")
	assert.Empty(t, f.writesTo(recB))
	f.Env.Sim.ResetRequests()
	res = f.step(t)
	assert.Equal(t, engine.OutcomeAdvanced, res.Outcome, res.Reason)
	t.Logf("the approved re-plan: %d requests, %d writes (benchmarks/README.md)", len(f.Env.Sim.Requests()), f.writes())
	assert.LessOrEqual(t, f.writes(), 7, "the re-plan's writes (benchmarks/README.md)")
	assert.Contains(t, res.Reason, "changed b")
	snap = f.StatusSnapshot(t)
	assert.Nil(t, snap.Gate)
	assert.Nil(t, snap.Amended)
	require.NotNil(t, snap.Design)
	assert.NotEqual(t, built.Design.Digest(), snap.Design.Digest(), "the pin moved to the amended design")
	assert.Equal(t, 2, f.Requests(prompts.Planning))
	assert.Equal(t, recA, *snap.SubWorkItem("a"), "a's record is untouched")
	b := snap.SubWorkItem("b")
	assert.Equal(t, pipeline.SWIPending, b.Status)
	assert.Equal(t, "Item b, reset at midnight", b.Title)
	assert.Equal(t, recB.PR, b.PR, "b keeps its PR and gets the new commits there")
	assert.Equal(t, 1, f.commentsOn(recB.Issue, "Re-planned: changed"))
	assert.Len(t, snap.SubWorkItems, 3)

	// The pipeline goes on: b is built again, then c, and it completes.
	for range 12 {
		if f.step(t).Outcome == engine.OutcomeComplete {
			break
		}
	}
	snap = f.StatusSnapshot(t)
	assert.Equal(t, pipeline.StageComplete, snap.Stage)
	assert.Empty(t, f.writesTo(recA), "no write to a's issue, PR or branch after the amendment")
	assert.NotEmpty(t, f.writesTo(recB), "b was rebuilt on its branch")
	assert.Len(t, f.Env.Sim.Pulls(repo), 3, "one PR per sub-work-item, none opened twice")
}

// TestAmendedSpecReplanCrashAtEveryWrite: the re-plan step killed at any
// of its writes, before the write or after it with the answer lost, is
// completed by the next steps with one amended plan, one notice on b and
// no write to a.
func TestAmendedSpecReplanCrashAtEveryWrite(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*amendFixture, pipeline.SWI) {
		f := newAmendFixture(t)
		built := f.untilBuilt(t)
		f.amend(t)
		f.step(t)
		// A crash may cost the answer before its comment: a second one.
		f.AddJSON(t, prompts.Planning, amendItems("Item b, reset at midnight"))
		f.AddJSON(t, prompts.Planning, amendItems("Item b, reset at midnight"))
		require.True(t, f.Env.Sim.LabelIssue(testenv.Repo.String(), f.Issue, "alice", pipeline.LabelApprove))
		f.Env.Sim.ResetRequests()
		return f, *built.SubWorkItem("a")
	}
	clean, _ := setup(t)
	counter := &testkit.CrashTransport{K: -1}
	_, err := engine.Run(context.Background(), clean.deps(t, counter), clean.ref, 1)
	require.NoError(t, err)
	total := counter.Writes()
	require.GreaterOrEqual(t, total, int64(6), "lock label, claim, plan comment, notice, b's labels, status, record, labels")

	for _, after := range []bool{false, true} {
		for k := int64(1); k <= total; k++ {
			t.Run(fmt.Sprintf("after=%v write %d", after, k), func(t *testing.T) {
				t.Parallel()
				f, recA := setup(t)
				_, _ = engine.Run(context.Background(), f.deps(t, &testkit.CrashTransport{K: k, After: after}), f.ref, 1)
				f.Env.Clock.Advance(f.Cfg.Pipeline.LockTimeout.Duration + time.Minute)
				var snap pipeline.Snapshot
				for range 4 {
					f.step(t)
					if snap = f.StatusSnapshot(t); snap.Amended == nil && snap.Gate == nil {
						break
					}
				}
				require.Nil(t, snap.Amended, "re-planned")
				b := snap.SubWorkItem("b")
				require.NotNil(t, b)
				assert.Equal(t, "Item b, reset at midnight", b.Title)
				assert.Equal(t, 1, f.commentsOn(b.Issue, "Re-planned: changed"), "one notice on b")
				assert.Equal(t, 1, f.commentsOn(f.Issue, "<!-- cogworks:key="+fmt.Sprint(f.Issue)+"/plan/amended/"), "one amended plan")
				assert.LessOrEqual(t, f.Requests(prompts.Planning), 3, "at most one answer lost to the crash")
				assert.Equal(t, recA, *snap.SubWorkItem("a"))
				assert.Empty(t, f.writesTo(recA))
				assert.Len(t, f.Env.Sim.Pulls(testenv.Repo.String()), 2, "no PR opened by the re-plan")
			})
		}
	}
}

// TestAmendedSpecAddsAndRetiresSubWorkItems: an amended plan without c
// and with a new d files d as a sub-issue, tells c's issue it is obsolete
// and closes it as not planned, and leaves a and b without a write.
func TestAmendedSpecAddsAndRetiresSubWorkItems(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	recA, recB, recC := *built.SubWorkItem("a"), *built.SubWorkItem("b"), *built.SubWorkItem("c")
	f.amend(t)
	f.Env.Sim.ResetRequests()
	f.step(t)
	plan := amendItems("Item b")
	plan.SubWorkItems[2] = stagetest.Item("d", nil)
	f.AddJSON(t, prompts.Planning, plan)
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	res := f.step(t)
	assert.Contains(t, res.Reason, "added d; changed none; obsolete c")
	snap := f.StatusSnapshot(t)
	require.Len(t, snap.SubWorkItems, 3)
	assert.Nil(t, snap.SubWorkItem("c"))
	d := snap.SubWorkItem("d")
	require.NotNil(t, d)
	assert.Greater(t, d.Order, recC.Order, "a new item comes after the filed ones")
	issue, ok := f.Env.Sim.Issue(repo, d.Issue)
	require.True(t, ok)
	assert.Equal(t, f.Issue, issue.Parent, "linked as a sub-issue")
	assert.Equal(t, 1, f.commentsOn(recC.Issue, "Re-planned: obsolete"))
	assert.Equal(t, 1, f.commentsOn(recC.Issue, "+Hourly counter, reset at midnight."), "the notice quotes the change")
	cIssue, _ := f.Env.Sim.Issue(repo, recC.Issue)
	assert.Equal(t, "closed", cIssue.State, "CogWorks closes the obsolete sub-issue it opened")
	assert.Equal(t, "not_planned", cIssue.StateReason)
	assert.Equal(t, recA, *snap.SubWorkItem("a"))
	assert.Equal(t, recB, *snap.SubWorkItem("b"))
	assert.Empty(t, f.writesTo(recA))
	assert.Empty(t, f.writesTo(recB))
}

// TestAmendedAgainAfterApprovalReopensThePause: an approval binds the
// amended text the pause showed; a second amendment before the step that
// would re-plan reopens the pause on the new text and spends the approval.
func TestAmendedAgainAfterApprovalReopensThePause(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	f.amend(t)
	f.step(t)
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	f.Env.Sim.SeedFiles(repo, stagekit.SpecBranch(f.Issue), map[string]string{stagekit.SpecPath(f.Issue): amendedSpec + "\nAnd weekly.\n"})
	res := f.step(t)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	snap := f.StatusSnapshot(t)
	require.NotNil(t, snap.Gate)
	assert.True(t, snap.Gate.Refused)
	assert.Contains(t, snap.Gate.Reason, "changed again")
	assert.Contains(t, f.statusBody(t), "+And weekly.")
	assert.Equal(t, 1, f.Requests(prompts.Planning), "no re-plan on a text nobody approved")
	assert.Equal(t, built.SubWorkItems, snap.SubWorkItems)
	require.NotEmpty(t, snap.Approvals)
	assert.NotEmpty(t, snap.Approvals[len(snap.Approvals)-1].Refused, "the approval is spent")
	assert.NotContains(t, f.Env.Sim.Labels(repo, f.Issue), pipeline.LabelApprove)
}

// TestRedTeamAmendedSpecIsNotBuiltUnapproved: whoever can push to the
// spec PR's branch (any workflow with contents: write, a collaborator who
// is not the approver) amends the approved specification after the plan
// was made, hoping code generation builds the unapproved text. The design
// pin stops it: the next step pauses and builds nothing, and an outsider's
// approval neither re-plans nor resumes. Without the pin (engine.Deps
// with no DesignWatcher, checked by removing it) the same step goes on to
// build c, reading the spec as it then is.
func TestRedTeamAmendedSpecIsNotBuiltUnapproved(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	pulls := len(f.Env.Sim.Pulls(repo))
	f.amend(t)
	for _, approver := range []string{"", "mallory"} {
		if approver != "" {
			require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, approver, pipeline.LabelApprove))
		}
		res := f.step(t)
		assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
		snap := f.StatusSnapshot(t)
		assert.NotNil(t, snap.Gate)
		assert.Equal(t, built.SubWorkItems, snap.SubWorkItems, "nothing built, nothing re-planned")
		assert.Len(t, f.Env.Sim.Pulls(repo), pulls, "c was not built")
		assert.Equal(t, 1, f.Requests(prompts.Planning))
	}
}
