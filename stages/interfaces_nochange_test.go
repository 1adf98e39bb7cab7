package stages

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestInterfaceDesignWithNothingToChangePassesWithoutPR: a bug fix needs
// no new interface; an answer whose files all equal the default branch
// (or that has no files) must not ask GitHub for a PR with no commits
// (422 "No commits between"), and later stages still find the list.
func TestInterfaceDesignWithNothingToChangePassesWithoutPR(t *testing.T) {
	t.Parallel()
	existing := fhSampleRepo["counter/counter.go"]
	tests := []struct {
		name   string
		answer Interfaces
		decls  int
	}{
		{"files equal to the default branch", Interfaces{
			Files:      []InterfaceFile{{Path: "counter/counter.go", Content: existing}},
			Interfaces: []pipeline.InterfaceDecl{{ID: "IF-1", Name: "Count", File: "counter/counter.go", Summary: "widget count"}},
		}, 1},
		{"no files and no interfaces", Interfaces{Files: []InterfaceFile{}, Interfaces: []pipeline.InterfaceDecl{}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFHFixture(t, nil)
			f.deps.Domain = startGoService(t)
			f.env.Sim.SeedFiles(testenv.Repo.String(), specBranch(f.issue), map[string]string{specPath(f.issue): "# Spec\n\nFix the count.\n"})
			f.addJSON(t, prompts.InterfaceDesign, tt.answer)
			snap := f.snapshot()
			res, err := f.run(t, pipeline.StageInterfaceDesign, snap)
			require.NoError(t, err)
			assert.Equal(t, pipeline.EventDone, res.Event)
			assert.Contains(t, res.Summary, "interface design changes nothing", "the audit trail says why there is no PR")
			assert.Contains(t, res.Summary, "no interface PR opened")
			assert.Empty(t, f.env.Sim.Pulls(testenv.Repo.String()))
			assert.Equal(t, "main", snap.Artifacts.InterfaceBranch, "sub-work-items stack on the default branch")
			assert.Zero(t, snap.Artifacts.InterfacePR)

			decls, err := loadInterfaces(context.Background(), f.env.Client, testenv.Repo, testenv.Bot, snap)
			require.NoError(t, err, "planning reads the list without a PR")
			assert.Len(t, decls, tt.decls)
		})
	}
}
