package interfaces_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestInterfaceDesignWithNothingToChangePassesWithoutPR: a bug fix needs
// no new interface; an answer whose files all equal the default branch
// (or that has no files) must not ask GitHub for a PR with no commits
// (422 "No commits between"), and later stages still find the list.
func TestInterfaceDesignWithNothingToChangePassesWithoutPR(t *testing.T) {
	t.Parallel()
	existing := stagetest.FHSampleRepo["counter/counter.go"]
	tests := []struct {
		name   string
		Answer interfaces.Interfaces
		decls  int
	}{
		{"files equal to the default branch", interfaces.Interfaces{
			Files:      []interfaces.InterfaceFile{{Path: "counter/counter.go", Content: existing}},
			Interfaces: []pipeline.InterfaceDecl{{ID: "IF-1", Name: "Count", File: "counter/counter.go", Summary: "widget count"}},
		}, 1},
		{"no files and no interfaces", interfaces.Interfaces{Files: []interfaces.InterfaceFile{}, Interfaces: []pipeline.InterfaceDecl{}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stagetest.NewFHFixture(t, nil)
			f.Deps.Domain = stagetest.StartGoService(t)
			f.Env.Sim.SeedFiles(testenv.Repo.String(), stagekit.SpecBranch(f.Issue), map[string]string{stagekit.SpecPath(f.Issue): "# Spec\n\nFix the count.\n"})
			f.AddJSON(t, prompts.InterfaceDesign, tt.Answer)
			snap := f.Snapshot()
			res, err := f.Run(t, pipeline.StageInterfaceDesign, snap)
			require.NoError(t, err)
			assert.Equal(t, pipeline.EventDone, res.Event)
			assert.Contains(t, res.Summary, "interface design changes nothing", "the audit trail says why there is no PR")
			assert.Contains(t, res.Summary, "no interface PR opened")
			assert.Empty(t, f.Env.Sim.Pulls(testenv.Repo.String()))
			assert.Equal(t, "main", snap.Artifacts.InterfaceBranch, "sub-work-items stack on the default branch")
			assert.Zero(t, snap.Artifacts.InterfacePR)

			decls, err := stagekit.LoadInterfaces(context.Background(), f.Env.Client, testenv.Repo, testenv.Bot, snap)
			require.NoError(t, err, "planning reads the list without a PR")
			assert.Len(t, decls, tt.decls)
		})
	}
}
