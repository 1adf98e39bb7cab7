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

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The default branch's watch and the close of an obsolete sub-issue
// (issue 28, point 5): the spec PR passed its gate by a label, was merged
// by a maintainer later, and its branch was left behind; the maintainer
// then edits the merged spec on main.

// withoutB is the amended plan: a as it was, b dropped, c changed (it
// takes over b's interface, which a plan must cover).
func withoutB() planner.Plan {
	c := stagetest.Item("c", []string{"IF-2"})
	c.Title = "Item c, reset at midnight"
	return planner.Plan{SubWorkItems: []planner.SubWorkItem{stagetest.Item("a", []string{"IF-1"}), c}}
}

// mergeSpec puts the spec as the spec branch has it on main, as merging
// the spec PR does; the branch stays.
func (f *amendFixture) mergeSpec(t *testing.T) {
	t.Helper()
	spec, err := f.Env.Client.GetFile(context.Background(), testenv.Repo, stagekit.SpecPath(f.Issue), stagekit.SpecBranch(f.Issue))
	require.NoError(t, err)
	f.Env.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{stagekit.SpecPath(f.Issue): string(spec)})
}

// editMain is the maintainer's direct edit of the merged spec on main.
func (f *amendFixture) editMain(t *testing.T) {
	t.Helper()
	f.Env.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{stagekit.SpecPath(f.Issue): amendedSpec})
}

// requestsTo counts the requests since the last reset whose path has s.
func (f *amendFixture) requestsTo(method, s string) int {
	n := 0
	for _, r := range f.Env.Sim.Requests() {
		if r.Method == method && strings.Contains(r.Path, s) {
			n++
		}
	}
	return n
}

// keyed is the key marker prefix of the re-plan's notice what on issue n.
func (f *amendFixture) keyed(what string, n int) string {
	return fmt.Sprintf("<!-- cogworks:key=%d/replan/%s/%d/", f.Issue, what, n)
}

// TestAmendedSpecEditedOnMainAfterItsPRMerged: the spec PR, approved by
// a label, is merged after planning and its branch left behind. The merge
// itself changes nothing (main has the planned text); the maintainer's
// later edit on main pauses with the diff exactly like a push to the spec
// PR, though the spec branch still has the old text. Approval re-plans:
// c changed, b obsolete — b's sub-issue is told with the change and
// closed as not planned, b's PR told and left open — and a sees no write.
func TestAmendedSpecEditedOnMainAfterItsPRMerged(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	require.NotNil(t, built.Design)
	require.NotEmpty(t, built.Design.Base, "planning pinned the default branch's head")
	recA, recB := *built.SubWorkItem("a"), *built.SubWorkItem("b")
	require.NotZero(t, recB.PR)

	// The merge: main gets the planned text; nothing to approve.
	f.mergeSpec(t)
	f.Env.Sim.ResetRequests()
	res := f.step(t)
	assert.NotEqual(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	snap := f.StatusSnapshot(t)
	spec, ok := snap.Design.File(stagekit.SpecPath(f.Issue))
	require.True(t, ok)
	assert.True(t, spec.OnDefault, "the merged spec is watched on main from now on")
	assert.Equal(t, 1, f.requestsTo(http.MethodGet, "/compare/"), "one compare from the commit last checked")

	// A step with main unchanged: the compare, and no read of the spec.
	f.Env.Sim.ResetRequests()
	f.step(t)
	assert.Equal(t, 1, f.requestsTo(http.MethodGet, "/compare/"))
	assert.Zero(t, f.requestsTo(http.MethodGet, "/contents/"+stagekit.SpecPath(f.Issue)), "the spec on main is unchanged since the last check")
	t.Logf("a step with main unchanged: %d requests, %d contents reads, %d compares (benchmarks/README.md)",
		len(f.Env.Sim.Requests()), f.contentReads(), f.requestsTo(http.MethodGet, "/compare/"))

	// The maintainer's direct edit on main pauses with the diff.
	before := f.StatusSnapshot(t)
	f.editMain(t)
	f.Env.Sim.ResetRequests()
	res = f.step(t)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	t.Logf("the step that finds the edit: %d requests, %d contents reads (benchmarks/README.md)", len(f.Env.Sim.Requests()), f.contentReads())
	snap = f.StatusSnapshot(t)
	require.NotNil(t, snap.Gate)
	require.NotNil(t, snap.Amended)
	assert.Contains(t, snap.Gate.Reason, "specification or interfaces changed")
	body := f.statusBody(t)
	assert.Contains(t, body, "-Hourly counter.")
	assert.Contains(t, body, "+Hourly counter, reset at midnight.")
	assert.Equal(t, before.SubWorkItems, snap.SubWorkItems, "the pause changes no record")
	onBranch, err := f.Env.Client.GetFile(context.Background(), testenv.Repo, stagekit.SpecPath(f.Issue), stagekit.SpecBranch(f.Issue))
	require.NoError(t, err)
	assert.NotContains(t, string(onBranch), "reset at midnight", "the spec branch still has the old text")

	// The writer's approval re-plans one item and retires b.
	f.AddJSON(t, prompts.Planning, withoutB())
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	f.Env.Sim.ResetRequests()
	res = f.step(t)
	assert.Equal(t, engine.OutcomeAdvanced, res.Outcome, res.Reason)
	assert.Contains(t, res.Reason, "added none; changed c; obsolete b")
	t.Logf("the re-plan that retires b: %d requests, %d writes (benchmarks/README.md)", len(f.Env.Sim.Requests()), f.writes())
	snap = f.StatusSnapshot(t)
	assert.Nil(t, snap.Gate)
	assert.Nil(t, snap.Amended)
	assert.Nil(t, snap.SubWorkItem("b"))
	assert.Equal(t, recA, *snap.SubWorkItem("a"), "a's record is untouched")

	bIssue, ok := f.Env.Sim.Issue(repo, recB.Issue)
	require.True(t, ok)
	assert.Equal(t, "closed", bIssue.State)
	assert.Equal(t, "not_planned", bIssue.StateReason)
	assert.Equal(t, 1, f.commentsOn(recB.Issue, f.keyed("obsolete", recB.Issue)))
	assert.Equal(t, 1, f.commentsOn(recB.Issue, "+Hourly counter, reset at midnight."), "the notice quotes the change")
	assert.Equal(t, 1, f.commentsOn(recB.PR, f.keyed("obsolete-pr", recB.PR)), "b's PR is told")
	for _, pr := range f.Env.Sim.Pulls(repo) {
		assert.Equal(t, "open", pr.State, "CogWorks closes no PR: #%d", pr.Number)
	}
	assert.Empty(t, f.writesTo(recA), "no write to a's issue, PR or branch")
	read, err := stagekit.ReadSpec(context.Background(), f.Env.Client, testenv.Repo, &snap)
	require.NoError(t, err)
	assert.Equal(t, amendedSpec, read, "the stages read the approved spec on main, not the stale spec branch")

	// The next steps go on without a second notice or close.
	for range 3 {
		f.step(t)
	}
	assert.Equal(t, 1, f.commentsOn(recB.Issue, f.keyed("obsolete", recB.Issue)))
	assert.Equal(t, 1, f.commentsOn(recB.PR, f.keyed("obsolete-pr", recB.PR)))
	closes := 0
	for _, e := range f.Env.Sim.Events(repo, recB.Issue) {
		if e.Event == "closed" {
			closes++
		}
	}
	assert.Equal(t, 1, closes, "closed once")
	assert.Empty(t, f.writesTo(recA))
}

// TestAmendedObsoleteCloseCrashAtEveryWrite: the re-plan that retires b
// killed at any of its writes, before the write or after it with the
// answer lost, is completed by the next steps with b's sub-issue closed
// once, one notice on it and one on its PR, and no write to a.
func TestAmendedObsoleteCloseCrashAtEveryWrite(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*amendFixture, pipeline.SWI, pipeline.SWI) {
		f := newAmendFixture(t)
		built := f.untilBuilt(t)
		f.mergeSpec(t)
		f.step(t)
		f.editMain(t)
		f.step(t)
		// A crash may cost the answer before its comment: a second one.
		f.AddJSON(t, prompts.Planning, withoutB())
		f.AddJSON(t, prompts.Planning, withoutB())
		require.True(t, f.Env.Sim.LabelIssue(testenv.Repo.String(), f.Issue, "alice", pipeline.LabelApprove))
		f.Env.Sim.ResetRequests()
		return f, *built.SubWorkItem("a"), *built.SubWorkItem("b")
	}
	clean, _, _ := setup(t)
	counter := &testkit.CrashTransport{K: -1}
	_, err := engine.Run(context.Background(), clean.deps(t, counter), clean.ref, 1)
	require.NoError(t, err)
	total := counter.Writes()
	require.GreaterOrEqual(t, total, int64(9), "lock label, claim, plan comment, c's notice, b's notice, b's PR notice, b's close, c's labels, status, record, labels")

	for _, after := range []bool{false, true} {
		for k := int64(1); k <= total; k++ {
			t.Run(fmt.Sprintf("after=%v write %d", after, k), func(t *testing.T) {
				t.Parallel()
				f, recA, recB := setup(t)
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
				assert.Nil(t, snap.SubWorkItem("b"))
				repo := testenv.Repo.String()
				b, _ := f.Env.Sim.Issue(repo, recB.Issue)
				assert.Equal(t, "closed", b.State)
				assert.Equal(t, "not_planned", b.StateReason)
				closes := 0
				for _, e := range f.Env.Sim.Events(repo, recB.Issue) {
					if e.Event == "closed" {
						closes++
					}
				}
				assert.Equal(t, 1, closes, "closed once")
				assert.Equal(t, 1, f.commentsOn(recB.Issue, f.keyed("obsolete", recB.Issue)), "one notice on b")
				assert.Equal(t, 1, f.commentsOn(recB.PR, f.keyed("obsolete-pr", recB.PR)), "one notice on b's PR")
				assert.Equal(t, 1, f.commentsOn(f.Issue, "<!-- cogworks:key="+fmt.Sprint(f.Issue)+"/plan/amended/"), "one amended plan")
				assert.Equal(t, recA, *snap.SubWorkItem("a"))
				assert.Empty(t, f.writesTo(recA))
			})
		}
	}
}

// tamper rewrites the status comment's snapshot through edit, as someone
// able to forge it (or a bug) would.
func (f *amendFixture) tamper(t *testing.T, edit func(*pipeline.Snapshot)) {
	t.Helper()
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Issue) {
		snap, ok, err := pipeline.ParseSnapshot(c.Body)
		if !ok {
			continue
		}
		require.NoError(t, err)
		edit(&snap)
		body, err := audit.StatusComment(snap, pipeline.StateMachine(), audit.StatusOptions{})
		require.NoError(t, err)
		_, err = f.Env.Client.EditComment(context.Background(), testenv.Repo, c.ID, body)
		require.NoError(t, err)
		return
	}
	t.Fatal("no status comment")
}

// TestRedTeamReplanClosesNoIssueCogWorksDidNotOpen: the records of the
// obsolete item b are made to name an issue CogWorks must not close — a
// person's issue attached to the work item as a sub-issue, or CogWorks's
// own sub-issue of another work item — and the approved re-plan drops b.
// The issue stays open: the re-planner closes only what its own login
// opened, and the GitHub adapter checks again through the API, author
// and parent both. Removing the adapter's parent check makes the second
// case close the other work item's sub-issue, and removing the author
// checks (re-planner and adapter) the first case close the person's issue
// (both verified by deleting them locally).
func TestRedTeamReplanClosesNoIssueCogWorksDidNotOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		notice string // what the victim is told
		victim func(t *testing.T, f *amendFixture) int
	}{
		{"a person's issue attached as a sub-issue", "CogWorks closes only the sub-issues it opened itself", func(t *testing.T, f *amendFixture) int {
			n := f.Env.Sim.SeedIssue(testenv.Repo.String(), "mallory", "Item b", "<!-- cogworks:swi=1/b -->")
			require.True(t, f.Env.Sim.SeedSubIssue(testenv.Repo.String(), f.Issue, n))
			return n
		}},
		{"CogWorks's sub-issue of another work item", "it is not a sub-issue of the work item", func(t *testing.T, f *amendFixture) int {
			other := f.Env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Another work item", "body")
			n := f.Env.Sim.SeedIssue(testenv.Repo.String(), testenv.Bot, "Sub-work of another item", "Part of another.")
			require.True(t, f.Env.Sim.SeedSubIssue(testenv.Repo.String(), other, n))
			return n
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newAmendFixture(t)
			repo := testenv.Repo.String()
			f.untilBuilt(t)
			victim := tc.victim(t, f)
			f.tamper(t, func(s *pipeline.Snapshot) {
				for i := range s.SubWorkItems {
					if s.SubWorkItems[i].ID == "b" {
						s.SubWorkItems[i].Issue, s.SubWorkItems[i].PR = victim, 0
					}
				}
			})
			f.amend(t)
			f.step(t)
			f.AddJSON(t, prompts.Planning, withoutB())
			require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
			res := f.step(t)
			assert.Contains(t, res.Reason, "obsolete b")
			is, ok := f.Env.Sim.Issue(repo, victim)
			require.True(t, ok)
			assert.Equal(t, "open", is.State, "never closed")
			for _, e := range f.Env.Sim.Events(repo, victim) {
				assert.NotEqual(t, "closed", e.Event)
			}
			assert.Equal(t, 1, f.commentsOn(victim, tc.notice), "the issue says why it stays open")
		})
	}
}

// TestDefaultBranchWatchCost measures what the default branch's watch
// adds to a step (benchmarks/README.md): the same steps on two fixtures,
// one unwatched. Before the spec PR is merged a step costs one compare
// more, and so does the step that finds the merge; after it, nothing more, the compare taking the place of the spec
// branch's read (the merged spec comes from the pin while main leaves it
// alone); the pin itself costs a read of the repository (the default
// branch's name) and of the branch's head.
func TestDefaultBranchWatchCost(t *testing.T) {
	t.Parallel()
	watched, unwatched := newAmendFixture(t), newAmendFixture(t)
	unwatched.unwatched = true
	cost := func(f *amendFixture, act func(*amendFixture)) int {
		act(f)
		f.Env.Sim.ResetRequests()
		f.step(t)
		return len(f.Env.Sim.Requests())
	}
	nothing := func(*amendFixture) {}
	for i, tc := range []struct {
		name  string
		act   func(*amendFixture)
		extra int
	}{
		{"planning, which pins the default branch's name and head", nothing, 2},
		{"a step with the spec PR open", nothing, 1},
		{"another", nothing, 1},
		{"the step after the merge (the spec read on main, not on its branch)", func(f *amendFixture) { f.mergeSpec(t) }, 1},
		{"a step after the merge", nothing, 0},
		{"another", nothing, 0},
	} {
		w, u := cost(watched, tc.act), cost(unwatched, tc.act)
		t.Logf("step %d, %s: %d requests watched, %d unwatched", i+1, tc.name, w, u)
		assert.Equal(t, tc.extra, w-u, "step %d: %s", i+1, tc.name)
	}
}

// TestAmendedObsoleteItemWithAMergedPRStaysOpen: b's PR was merged by a
// maintainer before the amendment dropped b. Its code is in the
// repository, so its sub-issue is told, with the change, and left open
// for the maintainer to decide what to keep; no close is sent.
func TestAmendedObsoleteItemWithAMergedPRStaysOpen(t *testing.T) {
	t.Parallel()
	f := newAmendFixture(t)
	repo := testenv.Repo.String()
	built := f.untilBuilt(t)
	recB := *built.SubWorkItem("b")
	require.NotZero(t, recB.PR)
	f.mergeAsAlice(t, recB.PR)
	f.amend(t)
	f.step(t)
	f.AddJSON(t, prompts.Planning, withoutB())
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	f.Env.Sim.ResetRequests()
	res := f.step(t)
	assert.Contains(t, res.Reason, "obsolete b")
	b, ok := f.Env.Sim.Issue(repo, recB.Issue)
	require.True(t, ok)
	assert.Equal(t, "open", b.State)
	assert.Equal(t, 1, f.commentsOn(recB.Issue, "was merged already"))
	assert.Zero(t, f.commentsOn(recB.PR, f.keyed("obsolete-pr", recB.PR)), "a merged PR is not asked to be closed")
	assert.Zero(t, f.requestsTo(http.MethodPatch, fmt.Sprintf("/issues/%d", recB.Issue)), "no close sent")
}

// mergeAsAlice merges PR n as the maintainer, through the API (CogWorks's
// own client may not merge).
func (f *amendFixture) mergeAsAlice(t *testing.T, n int) {
	t.Helper()
	token := "ghp_merge_alice"
	f.Env.Sim.AddToken(token, "alice")
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/api/v3/repos/%s/pulls/%d/merge", f.Env.URL, testenv.Repo, n), strings.NewReader(`{"merge_method":"squash"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestAmendedInterfaceEditedOnMainAfterItsPRMerged: the interface PR is
// merged after planning and its branch left behind; a maintainer's later
// edit of an interface file on main pauses with its diff.
func TestAmendedInterfaceEditedOnMainAfterItsPRMerged(t *testing.T) {
	t.Parallel()
	const branch, file = "cogworks/1/interfaces", "counter/hourly.go"
	planned := "package counter\n\n// Hourly counts per hour.\ntype Hourly interface{ Inc() }\n"
	f := newAmendFixture(t, func(snap *pipeline.Snapshot) { snap.Artifacts.InterfaceBranch = branch })
	repo := testenv.Repo.String()
	f.Env.Sim.SeedFiles(repo, branch, map[string]string{file: planned})
	f.untilBuilt(t)
	f.Env.Sim.SeedFiles(repo, "main", map[string]string{file: planned}) // the merge
	res := f.step(t)
	assert.NotEqual(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	pinned, ok := f.StatusSnapshot(t).Design.File(file)
	require.True(t, ok)
	assert.True(t, pinned.OnDefault)

	f.Env.Sim.SeedFiles(repo, "main", map[string]string{file: strings.Replace(planned, "Inc()", "Inc(); Reset()", 1)})
	res = f.step(t)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome, res.Reason)
	assert.Contains(t, f.statusBody(t), "+type Hourly interface{ Inc(); Reset() }")
}
