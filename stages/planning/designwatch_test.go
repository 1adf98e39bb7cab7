package planning

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// fakeDefault answers the default branch's watch and records its calls.
type fakeDefault struct {
	GitHub // only GetRepo is called
	branch string
	head   string
	cmp    github.Comparison
	cmpErr error
	calls  []string
}

func (f *fakeDefault) GetRepo(context.Context, github.Repo) (github.RepoInfo, error) {
	f.calls = append(f.calls, "repo")
	return github.RepoInfo{DefaultBranch: f.branch}, nil
}

func (f *fakeDefault) GetBranchSHA(_ context.Context, _ github.Repo, branch string) (string, error) {
	f.calls = append(f.calls, "head "+branch)
	if branch != f.branch {
		return "", fmt.Errorf("branch %s: %w", branch, github.ErrNotFound)
	}
	return f.head, nil
}

func (f *fakeDefault) Compare(_ context.Context, _ github.Repo, base, head string) (github.Comparison, error) {
	f.calls = append(f.calls, "compare "+base+"..."+head)
	return f.cmp, f.cmpErr
}

func TestWatchDefault(t *testing.T) {
	t.Parallel()
	pinned := &pipeline.DesignBasis{Base: "c1", Branch: "main"}
	moved := github.Comparison{TotalCommits: 2, Commits: []github.Commit{{SHA: "c2"}, {SHA: "c3"}},
		Files: []github.ChangedFile{{Path: "docs/spec.md", Status: "modified"}, {Path: "new.go", PreviousPath: "old.go", Status: "renamed"}}}
	tests := []struct {
		name      string
		last      *pipeline.DesignBasis
		branch    string
		cmp       github.Comparison
		cmpErr    error
		want      defaultWatch
		wantCalls []string
	}{
		{"the first check pins the branch and its head", nil, "main", github.Comparison{}, nil,
			defaultWatch{branch: "main", base: "c9", head: "c9"}, []string{"repo", "head main"}},
		{"unchanged: one compare", pinned, "main", github.Comparison{}, nil,
			defaultWatch{branch: "main", base: "c1", head: "c1", touched: map[string]bool{}}, []string{"compare c1...main"}},
		{"moved: the newest commit, the files it touched, renames both ways", pinned, "main", moved, nil,
			defaultWatch{branch: "main", base: "c1", head: "c3", touched: map[string]bool{"docs/spec.md": true, "new.go": true, "old.go": true}},
			[]string{"compare c1...main"}},
		{"a force-push lost the commit: read everything at the head", pinned, "main", github.Comparison{}, github.ErrNotFound,
			defaultWatch{branch: "main", base: "c1", head: "c9", all: true}, []string{"compare c1...main", "repo", "head main"}},
		{"too much to list: read everything at the head", pinned, "main", github.Comparison{}, github.ErrCompareTooLarge,
			defaultWatch{branch: "main", base: "c1", head: "c9", all: true}, []string{"compare c1...main", "repo", "head main"}},
		{"a branch name with a slash is compared by its head", &pipeline.DesignBasis{Base: "c1", Branch: "release/1"}, "release/1", moved, nil,
			defaultWatch{branch: "release/1", base: "c1", head: "c3", touched: map[string]bool{"docs/spec.md": true, "new.go": true, "old.go": true}},
			[]string{"head release/1", "compare c1...c9"}},
		{"a renamed default branch: read everything on the new one", &pipeline.DesignBasis{Base: "c1", Branch: "release/1"}, "trunk", moved, nil,
			defaultWatch{branch: "trunk", base: "c1", head: "c9", all: true}, []string{"head release/1", "repo", "head trunk"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeDefault{branch: tc.branch, head: "c9", cmp: tc.cmp, cmpErr: tc.cmpErr}
			r := Replanner{Executor: Executor{GitHub: f}, Default: f}
			got, err := r.watchDefault(context.Background(), engine.StageInput{}, tc.last)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantCalls, f.calls)
		})
	}
}

func TestWatchDefaultOffWithoutItsPort(t *testing.T) {
	t.Parallel()
	got, err := Replanner{}.watchDefault(context.Background(), engine.StageInput{}, &pipeline.DesignBasis{Base: "c1", Branch: "main"})
	require.NoError(t, err)
	assert.Equal(t, defaultWatch{}, got)
}
