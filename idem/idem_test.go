package idem_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

var repo = testenv.Repo

func writes(sim *githubsim.Server) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// TestAssertIDEM003_LabelTransitionsAreSafeToRepeat proves IDEM-003 on
// idem.SetLabelSet, the one path every label write takes: the engine's
// stage labels and lock label (internal/engine/lock.go), the sub-issue
// status labels (stagekit.SetSWIStatus) and planning's sub-issue labels
// (Labels.Add).
func TestAssertIDEM003_LabelTransitionsAreSafeToRepeat(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	n := env.Sim.SeedIssue(repo.String(), "alice", "t", "b")
	arch := pipeline.StageLabel(pipeline.StageArchitecture)
	ifaces := pipeline.StageLabel(pipeline.StageInterfaceDesign)
	read := func() []string { return env.Sim.Labels(repo.String(), n) }

	got, wrote, err := idem.SetLabelSet(ctx, env.Client, repo, n, read(), []string{pipeline.LabelRun, arch})
	require.NoError(t, err)
	assert.True(t, wrote)
	assert.ElementsMatch(t, []string{pipeline.LabelRun, arch}, got)

	tests := []struct {
		name      string
		want      []string
		wantWrite int
		wantAfter []string
	}{
		{"adding a label that is present is a quiet no-op", []string{arch, pipeline.LabelRun}, 0, []string{pipeline.LabelRun, arch}},
		{"removing a label that is absent is a quiet no-op", []string{pipeline.LabelRun, arch}, 0, []string{pipeline.LabelRun, arch}},
		{"a stage transition is one request", []string{pipeline.LabelRun, ifaces}, 1, []string{pipeline.LabelRun, ifaces}},
		{"repeating the transition sends nothing", []string{ifaces, pipeline.LabelRun}, 0, []string{pipeline.LabelRun, ifaces}},
	}
	for _, tt := range tests {
		env.Sim.ResetRequests()
		_, wrote, err := idem.SetLabelSet(ctx, env.Client, repo, n, read(), tt.want)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.wantWrite > 0, wrote, tt.name)
		assert.Equal(t, tt.wantWrite, writes(env.Sim), tt.name)
		assert.ElementsMatch(t, tt.wantAfter, read(), tt.name)
	}

	// A stale view (the caller thinks the label is missing) still ends
	// with the desired set, each label once.
	_, _, err = idem.SetLabelSet(ctx, env.Client, repo, n, []string{pipeline.LabelRun}, []string{pipeline.LabelRun, ifaces})
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(strings.Join(read(), ","), ifaces))

	// Labels.Add takes the same path: present labels cost no request.
	labels := idem.NewLabels(env.Client, repo, pipeline.LabelSpec)
	env.Sim.ResetRequests()
	_, wrote, err = labels.Add(ctx, n, read(), ifaces)
	require.NoError(t, err)
	assert.False(t, wrote)
	assert.Zero(t, env.Sim.RequestCount(), "and is a no-op")
}

func TestSameSet(t *testing.T) {
	tests := []struct {
		a, b []string
		want bool
	}{
		{nil, nil, true},
		{[]string{"x", "y"}, []string{"y", "x"}, true},
		{[]string{"x"}, []string{"x", "y"}, false},
		{[]string{"x", "x"}, []string{"x", "y"}, false},
		{[]string{"x", "x"}, []string{"x"}, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, idem.SameSet(tt.a, tt.b), "%v vs %v", tt.a, tt.b)
	}
}

func TestRepoLabelsCreatedWithColourAndDescription(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	n := env.Sim.SeedIssue(repo.String(), "alice", "t", "b")
	labels := idem.NewLabels(env.Client, repo, pipeline.LabelSpec)
	_, _, err := labels.Add(ctx, n, nil, pipeline.LabelProcessing)
	require.NoError(t, err)
	got, err := env.Client.ListRepoLabels(ctx, repo)
	require.NoError(t, err)
	color, desc, ok := pipeline.LabelSpec(pipeline.LabelProcessing)
	require.True(t, ok)
	assert.Contains(t, got, github.Label{Name: pipeline.LabelProcessing, Color: color, Description: desc})
}

func TestUpsertComment(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	n := env.Sim.SeedIssue(repo.String(), "alice", "t", "b")
	key := audit.Key("1", "status")
	body := audit.Format(audit.Comment{Key: key, Title: "status", Body: "v1"})

	c, changed, err := idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: body})
	require.NoError(t, err)
	assert.True(t, changed)

	env.Sim.ResetRequests()
	_, changed, err = idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: body})
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Zero(t, writes(env.Sim), "same body: nothing written")

	body2 := audit.Format(audit.Comment{Key: key, Title: "status", Body: "v2"})
	c2, changed, err := idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: body2})
	require.NoError(t, err)
	assert.True(t, changed)
	assert.Equal(t, c.ID, c2.ID, "edited in place, never re-posted")
	assert.Len(t, env.Sim.Comments(repo.String(), n), 1)

	_, _, err = idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: "no marker"})
	assert.ErrorContains(t, err, "lacks its key marker")
}

// A body over GitHub's 65,536 characters is cut by the adapter; the
// re-run compares the cut body and writes nothing.
func TestUpsertCommentOverGitHubsLimitIsIdempotent(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	n := env.Sim.SeedIssue(repo.String(), "alice", "t", "b")
	key := audit.Key("1", "report")
	body := audit.Format(audit.Comment{Key: key, Title: "report", Body: strings.Repeat("line\n", 20_000)})
	_, changed, err := idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: body})
	require.NoError(t, err)
	assert.True(t, changed)
	env.Sim.ResetRequests()
	_, changed, err = idem.UpsertComment(ctx, env.Client, repo, testenv.Bot, idem.KeyedComment{Issue: n, Key: key, Body: body})
	require.NoError(t, err)
	assert.False(t, changed)
	assert.Zero(t, writes(env.Sim), "the cut body is already there")
}

func TestAssertIDEM001_DuplicatePRCreationIsPrevented(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	commit := idem.Commit{Branch: "cogworks/42/spec", From: "main", Message: "spec", Files: map[string]string{"docs/spec.md": "# spec\n"}}
	_, changed, err := idem.WriteFiles(ctx, env.Client, repo, commit)
	require.NoError(t, err)
	require.True(t, changed)

	np := github.NewPull{Title: "Spec for #42", Head: commit.Branch, Base: "main", Body: "Refs #42"}
	first, created, err := idem.FindOrCreatePull(ctx, env.Client, repo, testenv.Bot, np)
	require.NoError(t, err)
	assert.True(t, created)

	second, created, err := idem.FindOrCreatePull(ctx, env.Client, repo, testenv.Bot, np)
	require.NoError(t, err)
	assert.False(t, created, "the existing PR is detected")
	assert.Equal(t, first.Number, second.Number)
	assert.Len(t, env.Sim.Pulls(repo.String()), 1)

	t.Run("422 from a concurrent creation counts as found", func(t *testing.T) {
		racer := &racingPulls{PullAPI: env.Client}
		got, created, err := idem.FindOrCreatePull(ctx, racer, repo, testenv.Bot, np)
		require.NoError(t, err)
		assert.False(t, created)
		assert.Equal(t, first.Number, got.Number)
		assert.Len(t, env.Sim.Pulls(repo.String()), 1)
	})
}

// racingPulls hides existing PRs from the first lookup, as if another run
// opened the PR between our lookup and our create, so CreatePull meets a 422.
type racingPulls struct {
	idem.PullAPI
	calls int
}

func (r *racingPulls) ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error) {
	r.calls++
	if r.calls == 1 {
		return nil, nil
	}
	return r.PullAPI.ListPulls(ctx, repo, f)
}

func TestAssertIDEM002_DuplicateSubIssueCreationIsPrevented(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	marker := "<!-- cogworks:swi=42/swi-1 -->"
	ni := github.NewIssue{Title: "[#42 1/2] Counter", Body: "Part of #42\n" + marker, Labels: []string{pipeline.LabelSubWorkItem}}
	filter := github.IssueFilter{Labels: []string{pipeline.LabelSubWorkItem}}

	first, created, err := idem.FindOrCreateIssue(ctx, env.Client, repo, testenv.Bot, idem.MarkedIssue{Marker: marker, Filter: filter, New: ni})
	require.NoError(t, err)
	assert.True(t, created)
	second, created, err := idem.FindOrCreateIssue(ctx, env.Client, repo, testenv.Bot, idem.MarkedIssue{Marker: marker, Filter: filter, New: ni})
	require.NoError(t, err)
	assert.False(t, created, "the existing sub-issue is detected and used")
	assert.Equal(t, first.Number, second.Number)

	other, created, err := idem.FindOrCreateIssue(ctx, env.Client, repo, testenv.Bot, idem.MarkedIssue{Marker: "<!-- cogworks:swi=42/swi-2 -->", Filter: filter,
		New: github.NewIssue{Title: "second", Body: "<!-- cogworks:swi=42/swi-2 -->", Labels: []string{pipeline.LabelSubWorkItem}}})
	require.NoError(t, err)
	assert.True(t, created, "a different marker is a different sub-issue")
	assert.NotEqual(t, first.Number, other.Number)
}

func TestWriteFilesOnlyWhenTreeDiffers(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	c := idem.Commit{Branch: "cogworks/7/interfaces", From: "main", Message: "interfaces",
		Files: map[string]string{"widgets/counter.go": "package widgets\n"}}
	head1, changed, err := idem.WriteFiles(ctx, env.Client, repo, c)
	require.NoError(t, err)
	assert.True(t, changed)

	env.Sim.ResetRequests()
	head2, changed, err := idem.WriteFiles(ctx, env.Client, repo, c)
	require.NoError(t, err)
	assert.False(t, changed, "same tree: no commit")
	assert.Equal(t, head1, head2)
	for _, r := range env.Sim.Requests() {
		if r.Method == "POST" {
			assert.NotContains(t, r.Path, "/git/commits", "no commit written")
		}
		assert.NotEqual(t, "PATCH", r.Method, "branch not moved")
	}

	c.Files["widgets/counter.go"] = "package widgets\n\n// Counter counts.\n"
	head3, changed, err := idem.WriteFiles(ctx, env.Client, repo, c)
	require.NoError(t, err)
	assert.True(t, changed)
	assert.NotEqual(t, head1, head3)
	files := env.Sim.BranchFiles(repo.String(), c.Branch)
	assert.Equal(t, "package widgets\n\n// Counter counts.\n", files["widgets/counter.go"])
	assert.Contains(t, files, "README.md", "branch starts from main")
}

// TestWriteFilesRequestBudget counts GitHub requests per branch commit
// (issue 8: a branch commit costs at most 5 requests).
func TestWriteFilesRequestBudget(t *testing.T) {
	const budget = 5
	env := testenv.New(t)
	ctx := context.Background()
	c := idem.Commit{Branch: "cogworks/9/swi-1", From: "main", Message: "swi-1",
		Files: map[string]string{"codec/codec.go": "package codec\n", "codec/doc.go": "// Package codec codes.\npackage codec\n"}}
	steps := []struct {
		name        string
		edit        func()
		wantChanged bool
		want        int
	}{
		{"new branch", func() {}, true, 5},
		{"same tree: no commit", func() {}, false, 2},
		{"existing branch", func() { c.Files["codec/codec.go"] = "package codec\n\n// V is 2.\nconst V = 2\n" }, true, 4},
		{"new branch, nothing to change", func() {
			c.Branch, c.Files = "cogworks/9/swi-2", map[string]string{"README.md": env.Sim.BranchFiles(repo.String(), "main")["README.md"]}
		}, false, 4},
	}
	for _, st := range steps {
		st.edit()
		env.Sim.ResetRequests()
		head, changed, err := idem.WriteFiles(ctx, env.Client, repo, c)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.wantChanged, changed, st.name)
		assert.Equal(t, st.want, env.Sim.RequestCount(), "%s: %v", st.name, env.Sim.Requests())
		assert.LessOrEqual(t, env.Sim.RequestCount(), budget, st.name)
		sha, err := env.Client.GetBranchSHA(ctx, repo, c.Branch)
		require.NoError(t, err)
		assert.Equal(t, sha, head, "%s: the branch points at the returned head", st.name)
		files := env.Sim.BranchFiles(repo.String(), c.Branch)
		for p, content := range c.Files {
			assert.Equal(t, content, files[p], "%s: %s committed", st.name, p)
		}
	}
}

// TestWriteFilesBranchCreatedConcurrently: another run creates the branch
// between our read and our create; the write lands on that branch.
func TestWriteFilesBranchCreatedConcurrently(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	other := idem.Commit{Branch: "cogworks/9/spec", From: "main", Message: "other", Files: map[string]string{"docs/a.md": "a\n"}}
	racer := &racingBranch{GitAPI: env.Client, before: func() {
		_, _, err := idem.WriteFiles(ctx, env.Client, repo, other)
		require.NoError(t, err)
	}}
	mine := idem.Commit{Branch: other.Branch, From: "main", Message: "mine", Files: map[string]string{"docs/b.md": "b\n"}}
	head, changed, err := idem.WriteFiles(ctx, racer, repo, mine)
	require.NoError(t, err)
	assert.True(t, changed)
	sha, err := env.Client.GetBranchSHA(ctx, repo, mine.Branch)
	require.NoError(t, err)
	assert.Equal(t, sha, head)
	files := env.Sim.BranchFiles(repo.String(), mine.Branch)
	assert.Equal(t, "a\n", files["docs/a.md"], "the other run's commit is kept")
	assert.Equal(t, "b\n", files["docs/b.md"])
}

// TestWriteFilesRulesetRefusalIsNotARace: a ruleset restricting
// cogworks/* refuses the branch's creation with a 422 like a concurrent
// creation's; WriteFiles used to retry it and then report "branch created
// concurrently". It must return the ruleset's refusal, after one attempt.
func TestWriteFilesRulesetRefusalIsNotARace(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	env.Sim.SetBranchRuleset(repo.String(), "cogworks/**")
	env.Sim.ResetRequests()
	_, _, err := idem.WriteFiles(ctx, env.Client, repo, idem.Commit{Branch: "cogworks/9/spec", From: "main", Message: "m", Files: map[string]string{"docs/a.md": "a\n"}})
	var rs *github.RulesetError
	require.ErrorAs(t, err, &rs)
	assert.NotContains(t, err.Error(), "concurrently")
	assert.Equal(t, 3, writes(env.Sim), "tree, commit, one refused ref creation: no second attempt")
}

// racingBranch runs before just ahead of the first CreateBranch.
type racingBranch struct {
	idem.GitAPI
	before func()
}

func (r *racingBranch) CreateBranch(ctx context.Context, repo github.Repo, branch, sha string) error {
	if r.before != nil {
		r.before()
		r.before = nil
	}
	return r.GitAPI.CreateBranch(ctx, repo, branch, sha)
}

func TestWriteFilesDeletes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	env.Sim.SeedFiles(repo.String(), "main", map[string]string{"old/a.go": "package old\n", "keep.go": "package keep\n"})
	c := idem.Commit{Branch: "cogworks/7/swi-1", From: "main", Message: "rename a.go",
		Files: map[string]string{"new/a.go": "package old\n"}, Delete: []string{"old/a.go"}}
	_, changed, err := idem.WriteFiles(ctx, env.Client, repo, c)
	require.NoError(t, err)
	assert.True(t, changed)
	files := env.Sim.BranchFiles(repo.String(), c.Branch)
	assert.NotContains(t, files, "old/a.go", "deleted")
	assert.Equal(t, "package old\n", files["new/a.go"])
	assert.Equal(t, "package keep\n", files["keep.go"], "the rest of the tree is untouched")

	_, changed, err = idem.WriteFiles(ctx, env.Client, repo, c)
	require.NoError(t, err)
	assert.False(t, changed, "deleting a file already gone writes nothing")
}
