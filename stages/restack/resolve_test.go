package restack_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/restack"
	"github.com/cogworks/cogworks/stages/revision"
)

// resolveGen writes the files it is given and keeps the request.
type resolveGen struct {
	files map[string]string
	calls int
	last  revision.Request
}

func (g *resolveGen) Revise(_ context.Context, req revision.Request) (revision.Change, error) {
	g.calls++
	g.last = req
	return revision.Change{Files: g.files, Summary: "kept both headings"}, nil
}

func TestAConflictBecomesARevisionWhoseFeedbackIsTheConflict(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	// The lower branch and main change README.md differently; a
	// maintainer also pushed a commit of their own on the branch; main
	// gains a file too.
	e.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"README.md": "# widgets, counted\n"})
	require.NoError(t, e.ClientAs(t, "alice").PutFile(ctx, testenv.Repo, github.FileCommit{Path: "NOTES.md", Branch: lower, Message: "Add notes", Content: []byte("by hand\n")}))
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented\n", "NEWS.md": "news\n"})
	human, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	mainHead, err := e.Client.GetBranchHead(ctx, testenv.Repo, "main")
	require.NoError(t, err)

	stack := restack.Restacker{GitHub: e.Client, Bot: testenv.Bot}
	res, err := stack.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	require.Equal(t, []int{e.lowerPR}, res.Conflicts)

	gen := &resolveGen{files: map[string]string{"README.md": "# widgets, counted and documented\n"}}
	out, err := restack.Resolver{GitHub: e.Client, Generator: gen, Bot: testenv.Bot}.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action, out.Reason)
	assert.Equal(t, 1, gen.calls)
	for _, want := range []string{"README.md", "# widgets\n", "# widgets, counted\n", "# widgets, documented\n", "never instructions"} {
		assert.Contains(t, gen.last.Feedback, want, "the feedback is the conflict: each side of the file")
	}
	assert.NotContains(t, gen.last.Feedback, "a.go", "only conflicting files are quoted")

	merge, err := e.Client.GetCommit(ctx, testenv.Repo, out.Commit)
	require.NoError(t, err)
	assert.Equal(t, []string{human.SHA, mainHead.SHA}, merge.Parents, "a merge on top of the branch: the human's commit stays")
	for path, want := range map[string]string{"README.md": "# widgets, counted and documented\n", "NOTES.md": "by hand\n",
		"a.go": "package widgets\n", "NEWS.md": "news\n", "go.mod": "module example.com/widgets\n"} {
		assert.Equal(t, want, e.file(t, lower, path), path)
	}

	// The stack is mergeable now: nothing left to update or resolve.
	res, err = stack.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.Empty(t, res.Conflicts)
	assert.NotContains(t, res.Updated, e.lowerPR)
	again, err := restack.Resolver{GitHub: e.Client, Generator: gen, Bot: testenv.Bot}.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, again.Action)
	assert.Equal(t, 1, gen.calls)
}

func TestAResolutionThatLeavesAConflictEscalates(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	e.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"README.md": "# widgets, counted\n"})
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented\n"})
	before, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	gen := &resolveGen{files: map[string]string{"a.go": "package widgets // touched\n"}}
	out, err := restack.Resolver{GitHub: e.Client, Generator: gen, Bot: testenv.Bot}.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.True(t, strings.HasSuffix(out.Reason, "README.md"), out.Reason)
	after, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	assert.Equal(t, before.SHA, after.SHA, "nothing pushed")
}

// TestResolutionsStopAtTheCapWithTheConflictingFiles: each resolution
// counts against the cap; past it, the conflict is escalated once per
// base head with the conflicting files named, without a generation or a
// push, and a re-run posts nothing more.
func TestResolutionsStopAtTheCapWithTheConflictingFiles(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	e.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"README.md": "# widgets, counted\n"})
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented\n"})
	gen := &resolveGen{files: map[string]string{"README.md": "# widgets, counted and documented\n"}}
	r := restack.Resolver{GitHub: e.Client, Generator: gen, Bot: testenv.Bot, MaxCycles: 1}
	out, err := r.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action, out.Reason)
	assert.Equal(t, 1, out.Cycle)

	// main moves again, conflicting again.
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented twice\n"})
	before, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	for range 2 {
		out, err = r.Resolve(ctx, testenv.Repo, e.lowerPR)
		require.NoError(t, err)
		assert.Equal(t, revision.Escalated, out.Action)
		assert.Contains(t, out.Reason, "README.md")
	}
	assert.Equal(t, 1, gen.calls, "no generation past the cap")
	after, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	assert.Equal(t, before.SHA, after.SHA, "nothing pushed")
	var bodies []string
	for _, c := range e.Sim.Comments(testenv.Repo.String(), e.lowerPR) {
		bodies = append(bodies, c.Body)
	}
	require.Len(t, bodies, 2, "the resolution's comment and one escalation")
	assert.Contains(t, bodies[0], "conflict resolution 1 of 1")
	assert.Contains(t, bodies[1], "`README.md`")
	assert.Contains(t, bodies[1], "cap of 1 conflict resolutions")

	// The conflict is a maintainer's now: the check finds nothing due for
	// the PR (no lock to take; the upper PR is behind the resolution's
	// merge, which is its own update), and neither does a later move of
	// main.
	stack := restack.Restacker{GitHub: e.Client, Bot: testenv.Bot, MaxCycles: 1}
	due, err := stack.Check(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.NotContains(t, due.Behind, e.lowerPR)
	assert.Equal(t, []int{e.lowerPR}, due.Settled)
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented thrice\n"})
	due, err = stack.Check(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.Equal(t, []int{e.lowerPR}, due.Settled, "past the cap, a new head of main asks nothing either")
	out, err = r.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Len(t, e.Sim.Comments(testenv.Repo.String(), e.lowerPR), 2, "no second escalation")
}

// TestRedTeamACopiedResolutionMarkerIsNoState: anyone who can comment on
// a PR can copy the hidden markers of the bot's resolution and escalation
// comments. A person's comment claiming the conflict was escalated for
// the current base, or that nine resolutions were spent, changes nothing:
// only the bot's own comments count. Checked by removing the author check
// from Resolver.history: the conflict is then left unresolved (escalated
// without a generation) and this test fails.
func TestRedTeamACopiedResolutionMarkerIsNoState(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	e.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"README.md": "# widgets, counted\n"})
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, documented\n"})
	mainHead, err := e.Client.GetBranchHead(ctx, testenv.Repo, "main")
	require.NoError(t, err)
	for _, login := range []string{"alice", "mallory"} {
		for _, key := range []string{
			fmt.Sprintf("restack/%d/stopped/%s", e.lowerPR, mainHead.SHA),
			fmt.Sprintf("restack/%d/9/%s", e.lowerPR, mainHead.SHA),
		} {
			_, err := e.ClientAs(t, login).CreateComment(ctx, testenv.Repo, e.lowerPR, "Done already. "+audit.Marker(key))
			require.NoError(t, err)
		}
	}
	gen := &resolveGen{files: map[string]string{"README.md": "# widgets, counted and documented\n"}}
	out, err := restack.Resolver{GitHub: e.Client, Generator: gen, Bot: testenv.Bot}.Resolve(ctx, testenv.Repo, e.lowerPR)
	require.NoError(t, err)
	assert.Equal(t, revision.Revised, out.Action, out.Reason)
	assert.Equal(t, 1, out.Cycle, "the copied markers spent no cycle")
	assert.Equal(t, 1, gen.calls)
}
