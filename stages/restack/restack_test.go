package restack_test

import (
	"context"
	"net/http"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/restack"
)

const (
	lower = "cogworks/1/swi-1"
	upper = "cogworks/1/swi-2"
)

type stackEnv struct {
	*testenv.Env
	lowerPR, upperPR int
}

// newStack is a stack of two CogWorks PRs: lower onto main, upper onto
// lower, each adding a file.
func newStack(t *testing.T) stackEnv {
	t.Helper()
	ctx := context.Background()
	env := testenv.New(t)
	env.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets\n", "go.mod": "module example.com/widgets\n"})
	env.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"a.go": "package widgets\n"})
	head, err := env.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	require.NoError(t, env.Client.CreateBranch(ctx, testenv.Repo, upper, head.SHA))
	env.Sim.SeedFiles(testenv.Repo.String(), upper, map[string]string{"b.go": "package widgets\n"})
	lo, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "swi-1", Head: lower, Base: "main"})
	require.NoError(t, err)
	up, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "swi-2", Head: upper, Base: lower})
	require.NoError(t, err)
	return stackEnv{Env: env, lowerPR: lo.Number, upperPR: up.Number}
}

// mergeAs merges pr as a maintainer would, through the REST API.
func (e stackEnv) mergeAs(t *testing.T, login string, pr int) {
	t.Helper()
	token := "ghp_merge_" + login
	e.Sim.AddToken(token, login)
	c, err := gh.NewClient(nil).WithAuthToken(token).WithEnterpriseURLs(e.URL+"/api/v3/", e.URL+"/api/uploads/")
	require.NoError(t, err)
	_, _, err = c.PullRequests.Merge(context.Background(), testenv.Repo.Owner, testenv.Repo.Name, pr, "", &gh.PullRequestOptions{MergeMethod: "merge"})
	require.NoError(t, err)
}

// writes counts the non-GET requests GitHub carried out (an
// update-branch of an up-to-date branch is refused, 422, and changes
// nothing).
func (e stackEnv) writes() int {
	n := 0
	for _, r := range e.Sim.Requests() {
		if r.Method != http.MethodGet && r.Status < 300 {
			n++
		}
	}
	return n
}

func (e stackEnv) file(t *testing.T, branch, path string) string {
	t.Helper()
	b, err := e.Client.GetFile(context.Background(), testenv.Repo, path, branch)
	require.NoError(t, err)
	return string(b)
}

func TestMergedLowerPRLeavesTheStackRetargetedAndUpToDate(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	// A maintainer pushes a commit of their own on the upper branch.
	require.NoError(t, e.ClientAs(t, "alice").PutFile(ctx, testenv.Repo, github.FileCommit{Path: "NOTES.md", Branch: upper, Message: "Add notes", Content: []byte("by hand\n")}))
	human, err := e.Client.GetBranchHead(ctx, testenv.Repo, upper)
	require.NoError(t, err)
	// The lower PR is merged, and main moves on.
	e.mergeAs(t, "alice", e.lowerPR)
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"NEWS.md": "news\n"})

	r := restack.Restacker{GitHub: e.Client, Bot: testenv.Bot}
	res, err := r.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.Equal(t, map[int]string{e.upperPR: "main"}, res.Retargeted)
	assert.Equal(t, []int{e.upperPR}, res.Updated)
	assert.Empty(t, res.Conflicts)

	up, err := e.Client.GetPull(ctx, testenv.Repo, e.upperPR)
	require.NoError(t, err)
	assert.Equal(t, "main", up.Base)
	merge, err := e.Client.GetCommit(ctx, testenv.Repo, up.HeadSHA)
	require.NoError(t, err)
	require.Len(t, merge.Parents, 2)
	assert.Equal(t, human.SHA, merge.Parents[0], "the human's commit stays: a merge on top, no force-push")
	for path, want := range map[string]string{"NOTES.md": "by hand\n", "b.go": "package widgets\n", "NEWS.md": "news\n", "a.go": "package widgets\n"} {
		assert.Equal(t, want, e.file(t, upper, path))
	}

	// Again: nothing left to do, nothing written.
	writes := e.writes()
	again, err := r.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.Empty(t, again.Retargeted)
	assert.Empty(t, again.Updated)
	assert.Equal(t, writes, e.writes())
}

func TestRestackTouchesOnlyCogWorksPullRequestsAndReportsConflicts(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	// A person's PR on their own branch, based on main.
	e.Sim.SeedFiles(testenv.Repo.String(), "feature", map[string]string{"README.md": "# mine\n"})
	theirs, err := e.ClientAs(t, "alice").CreatePull(ctx, testenv.Repo, github.NewPull{Title: "mine", Head: "feature", Base: "main"})
	require.NoError(t, err)
	// main changes the file the lower branch also changes: a conflict.
	e.Sim.SeedFiles(testenv.Repo.String(), lower, map[string]string{"README.md": "# widgets, lower\n"})
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, main\n"})
	before, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)

	res, err := restack.Restacker{GitHub: e.Client, Bot: testenv.Bot}.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	assert.Equal(t, []int{e.lowerPR}, res.Conflicts, "the conflict is reported, for a revision")
	assert.Empty(t, res.Retargeted, "the upper PR's base is not merged")
	after, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	assert.Equal(t, before.SHA, after.SHA, "a conflicting branch is left as it was")
	assert.NotContains(t, res.Updated, theirs.Number, "a person's PR is never touched")
	assert.Equal(t, "# mine\n", e.file(t, "feature", "README.md"))
}

// requestsSince splits the simulator's requests after start into reads
// and writes (benchmarks/README.md).
func (e stackEnv) requestsSince(start int) (reads, writes int) {
	for _, r := range e.Sim.Requests()[start:] {
		if r.Method == http.MethodGet {
			reads++
		} else {
			writes++
		}
	}
	return reads, writes
}

// TestRestackAndResolveCosts pins the GitHub requests of a restack pass
// after a lower PR's merge (the open PRs; per CogWorks PR its base's
// merged PR, followed down to a base no PR merged; the retarget and the
// update-branch) and of resolving one conflicting file (PR, both heads,
// the compare both ways, the PR's comments, the file's three versions,
// the branch's tree; the comment announcing it, tree, merge commit,
// fast-forward).
func TestRestackAndResolveCosts(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	e.mergeAs(t, "alice", e.lowerPR)
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"NEWS.md": "news\n"})
	start := len(e.Sim.Requests())
	_, err := restack.Restacker{GitHub: e.Client, Bot: testenv.Bot}.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	reads, writes := e.requestsSince(start)
	assert.Equal(t, 3, reads, "restack reads")
	assert.Equal(t, 2, writes, "restack writes")
	start = len(e.Sim.Requests())
	_, err = restack.Restacker{GitHub: e.Client, Bot: testenv.Bot}.Restack(ctx, testenv.Repo)
	require.NoError(t, err)
	reads, writes = e.requestsSince(start)
	t.Logf("a second pass: %d reads, %d writes", reads, writes)
	assert.Equal(t, 2, reads, "second pass reads")
	assert.Equal(t, 1, writes, "second pass: update-branch, refused as up to date")

	e.Sim.SeedFiles(testenv.Repo.String(), upper, map[string]string{"README.md": "# widgets, upper\n"})
	e.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"README.md": "# widgets, main\n"})
	start = len(e.Sim.Requests())
	out, err := restack.Resolver{GitHub: e.NewClient(t, nil), Generator: &resolveGen{files: map[string]string{"README.md": "# widgets, both\n"}}, Bot: testenv.Bot}.
		Resolve(ctx, testenv.Repo, e.upperPR)
	require.NoError(t, err)
	require.Equal(t, "revised", string(out.Action), out.Reason)
	reads, writes = e.requestsSince(start)
	assert.Equal(t, 10, reads, "resolve reads")
	assert.Equal(t, 4, writes, "resolve writes")
}
