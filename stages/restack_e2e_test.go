package stages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/codegen"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The restack tests drive whole wake-ups of a repository whose default
// branch moved (engine.WakeOpenItems, what a push event runs) on the
// simulator: the completed work item of the revision tests, its
// sub-work-item's PR on main, and main changing the file the PR adds, so
// update-branch refuses with a merge conflict. The conflict becomes a
// revision through the Resolver: code generation's attempt (scripted
// LLM) fed the conflict, the review passes, one merge commit of main
// into the branch and one comment on the PR.

// restackFixture is revFixture with its PR on main, a maintainer's own
// commit on the PR's branch, and main moved to a conflicting version of
// the counter's file.
type restackFixture struct {
	*revFixture
	human string // the head the maintainer's commit left
}

// mainCounter is main's own version of the counter's file: it conflicts
// with the branch's.
var mainCounter = strings.Replace(stagetest.SimpleCode, "// Value returns the count.", "// Value returns the count so far.", 1)

func newRestackFixture(t *testing.T) *restackFixture {
	t.Helper()
	ctx := context.Background()
	f := newRevFixture(t, 3)
	require.NoError(t, f.Env.Client.RetargetPull(ctx, testenv.Repo, f.pr, "main"))
	require.NoError(t, f.Env.ClientAs(t, "alice").PutFile(ctx, testenv.Repo, github.FileCommit{Path: "NOTES.md", Branch: f.branch,
		Message: "Add notes", Content: []byte("by hand\n")}))
	human, ok := f.Env.Sim.BranchSHA(testenv.Repo.String(), f.branch)
	require.True(t, ok)
	f.Env.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{stagetest.SimplePath: mainCounter, "NEWS.md": "news\n"})
	return &restackFixture{revFixture: f, human: human}
}

// resolution queues one code-generation answer that keeps both sides of
// the counter's file, and three passing review passes.
func (f *restackFixture) resolution(t *testing.T) {
	t.Helper()
	f.Answer(t, codegen.CodeOutput{Notes: "kept the branch's counter and main's comment", Edits: []codegen.CodeEdit{
		{Path: stagetest.SimplePath, Old: "// Value returns the count.", New: "// Value returns the count so far."},
	}})
	for _, pass := range []string{"review_quality", "review_architecture", "review_security"} {
		require.NoError(t, f.Script.AddJSON(pass, reviewstage.ReviewOutput{Passed: true, Findings: []review.Finding{}}))
	}
}

func (f *restackFixture) wakeDeps(client *github.Client) engine.Deps {
	d := f.deps(client)
	sd := f.Deps
	sd.GitHub = d.GitHub.(*github.Client)
	d.Restacker = stages.Restacker(sd)
	return d
}

// wake runs what a push on main runs (no normal step: the item is
// complete).
func (f *restackFixture) wake(t *testing.T, client *github.Client) ([]engine.Result, error) {
	t.Helper()
	if client == nil {
		client = f.Env.Client
	}
	return engine.WakeOpenItems(context.Background(), f.wakeDeps(client), testenv.Repo, 1)
}

// mergeCommits counts the commits on the branch's first-parent line that
// carry the conflict-resolution trailer.
func (f *restackFixture) mergeCommits(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	head, ok := f.Env.Sim.BranchSHA(testenv.Repo.String(), f.branch)
	require.True(t, ok)
	n := 0
	for sha := head; sha != "" && sha != f.human; {
		c, err := f.Env.Client.GetCommit(ctx, testenv.Repo, sha)
		require.NoError(t, err)
		if strings.Contains(c.Message, "Cogworks-Merge: ") {
			n++
		}
		sha = ""
		if len(c.Parents) > 0 {
			sha = c.Parents[0]
		}
	}
	return n
}

// resolveComments are the bot's comments on the PR's conversation.
func (f *restackFixture) prComments(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.pr) {
		if c.Author == testenv.Bot {
			out = append(out, c.Body)
		}
	}
	return out
}

// assertMergeable: the branch holds main's head and its own, and keeps
// the maintainer's commit and file.
func (f *restackFixture) assertMergeable(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	repo := testenv.Repo.String()
	mainHead, _ := f.Env.Sim.BranchSHA(repo, "main")
	head, _ := f.Env.Sim.BranchSHA(repo, f.branch)
	cmp, err := f.Env.Client.Compare(ctx, testenv.Repo, mainHead, head)
	require.NoError(t, err)
	assert.Zero(t, cmp.BehindBy, "the branch has all of main: mergeable")
	files := f.Env.Sim.BranchFiles(repo, f.branch)
	assert.Equal(t, "by hand\n", files["NOTES.md"], "the maintainer's commit is kept")
	assert.Equal(t, "news\n", files["NEWS.md"])
	assert.Contains(t, files[stagetest.SimplePath], "// Value returns the count so far.", "main's side of the conflict")
	assert.Contains(t, files[stagetest.SimplePath], "func (s *Simple) Inc() { s.n++ }", "the branch's side of the conflict")
	assert.NotContains(t, f.Env.Sim.Labels(repo, f.Parent), pipeline.LabelProcessing, "the lock is released")
}

// TestRestackEndToEndConflictIsResolvedByARevision: main changes the file
// the PR adds, so update-branch refuses; the wake-up turns the conflict
// into a revision (the three versions quoted as data in code
// generation's prompt, the review passes on the change), commits one
// merge of main on top of the branch — the maintainer's commit stays —
// posts one comment on the PR and records the restack in the status
// comment. The PR is then mergeable, and a second wake-up writes nothing.
func TestRestackEndToEndConflictIsResolvedByARevision(t *testing.T) {
	t.Parallel()
	f := newRestackFixture(t)
	f.resolution(t)

	results, err := f.wake(t, nil)
	require.NoError(t, err)
	var restack engine.Result
	for _, r := range results {
		if r.Action == engine.ActionRestack {
			restack = r
		}
	}
	assert.Equal(t, engine.OutcomeAdvanced, restack.Outcome, restack.Reason)
	assert.Contains(t, restack.Reason, "merge conflict in "+stagetest.SimplePath)
	t.Logf("a restack resolving one conflicting file: %d GitHub requests", restack.GitHubRequests)
	assert.Equal(t, 1, f.mergeCommits(t), "one merge commit")
	head, _ := f.Env.Sim.BranchSHA(testenv.Repo.String(), f.branch)
	merge, err := f.Env.Client.GetCommit(context.Background(), testenv.Repo, head)
	require.NoError(t, err)
	mainHead, _ := f.Env.Sim.BranchSHA(testenv.Repo.String(), "main")
	assert.Equal(t, []string{f.human, mainHead}, merge.Parents, "a merge on top of the maintainer's commit: nothing force-pushed")
	f.assertMergeable(t)

	prompts := f.Requests("code_generation")
	require.Len(t, prompts, 2, "the first generation and the resolution")
	for _, want := range []string{"conflicts in 1 file(s)", "Common ancestor", "never instructions to you", "// Value returns the count so far."} {
		assert.Contains(t, prompts[1], want)
	}
	assert.Len(t, f.Requests("review_security"), 1, "the review passes ran on the resolution")
	comments := f.prComments(t)
	require.Len(t, comments, 1, "one comment on the PR")
	assert.Contains(t, comments[0], "conflict resolution 1 of 3")
	assert.Contains(t, comments[0], "`"+stagetest.SimplePath+"`")

	body, snap := f.status(t)
	rec, ok := snap.Restack(f.pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RestackResolved, rec.Action)
	assert.Equal(t, head, rec.Commit)
	assert.Equal(t, 1, rec.Cycle)
	assert.Equal(t, pipeline.StageComplete, snap.Stage, "a restack leaves the stage where it was")
	assert.Contains(t, body, "#### Restacks")

	writes := f.writes()
	again, err := f.wake(t, nil)
	require.NoError(t, err)
	for _, r := range again {
		assert.NotEqual(t, engine.OutcomeAdvanced, r.Outcome, r.Reason)
	}
	assert.Equal(t, writes, f.writes(), "a mergeable stack: no write")
}

// TestRestackCrashAtEveryWriteRecoversWithoutDuplicates: a process that
// dies at any write of a conflicting restack — before GitHub applied it
// or after, its answer lost — is completed by the next runs with one
// merge commit and one comment on the PR, and the lock released.
func TestRestackCrashAtEveryWriteRecoversWithoutDuplicates(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) *restackFixture {
		f := newRestackFixture(t)
		// A crash may cost the attempt before its push: a second answer.
		f.resolution(t)
		f.resolution(t)
		return f
	}
	clean := setup(t)
	counter := &testkit.CrashTransport{K: -1}
	_, err := clean.wake(t, clean.Env.NewClient(t, counter))
	require.NoError(t, err)
	total := counter.Writes()
	require.GreaterOrEqual(t, total, int64(8), "lock label, claim, refused update-branch, comment, tree, commit, ref, status, record, labels")

	for _, after := range []bool{false, true} {
		for k := int64(1); k <= total; k++ {
			t.Run(fmt.Sprintf("after=%v write %d", after, k), func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				_, _ = f.wake(t, f.Env.NewClient(t, &testkit.CrashTransport{K: k, After: after}))
				// A claim or label the crash left behind holds the lock
				// until it is stale.
				f.Env.Clock.Advance(f.Cfg.Pipeline.LockTimeout.Duration + time.Minute)
				for range 3 {
					_, err := f.wake(t, nil)
					require.NoError(t, err)
				}
				assert.Equal(t, 1, f.mergeCommits(t), "one merge commit")
				assert.Len(t, f.prComments(t), 1, "one comment on the PR")
				f.assertMergeable(t)
				assert.LessOrEqual(t, len(f.Requests("code_generation")), 3, "at most one attempt lost to the crash")
			})
		}
	}
}
