package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestDesignSkipPerWorkItem: the engine chooses the table per work item
// from its classification and [pipeline] skip_design_for, records the
// choice in the snapshot and the status comment, and runs the item
// through it; a feature, a safety-affecting bug fix and a configuration
// that turns the skip off keep the full path.
func TestDesignSkipPerWorkItem(t *testing.T) {
	bugFix := classify.Classification{Type: classify.TypeBugFix, EstimatedScope: classify.Scope{Files: 1, Complexity: "low"}}
	tests := []struct {
		name  string
		class classify.Classification
		cfg   func(*config.Config)
		skips bool
	}{
		{name: "low bug fix skips design", class: bugFix, skips: true},
		{name: "feature keeps design", class: classify.Classification{Type: classify.TypeFeature, EstimatedScope: classify.Scope{Complexity: "low"}}},
		{name: "medium bug fix keeps design", class: classify.Classification{Type: classify.TypeBugFix, EstimatedScope: classify.Scope{Complexity: "medium"}}},
		{name: "safety-affecting bug fix keeps design", class: func() classify.Classification { c := bugFix; c.SafetyAffecting = true; return c }()},
		{name: "config off keeps design", class: bugFix, cfg: func(c *config.Config) { c.Pipeline.SkipDesignFor = nil }},
		{name: "medium threshold lets a medium bug fix skip", class: classify.Classification{Type: classify.TypeBugFix, EstimatedScope: classify.Scope{Complexity: "medium"}},
			cfg: func(c *config.Config) { c.Pipeline.SkipDesignMaxComplexity = "medium" }, skips: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, pipeline.LabelRun)
			for k := range f.deps.Config.Gates {
				f.deps.Config.Gates[k] = config.AutoProceed
			}
			if tt.class.SafetyAffecting {
				f.deps.Config.Gates["architecture"] = config.Default().Gates["architecture"]
			}
			if tt.cfg != nil {
				tt.cfg(&f.deps.Config)
			}
			class := tt.class
			f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
				return StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetClassification{Classification: class}}}, nil
			})
			f.deps.Executors[pipeline.StageIntegration] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
				return StageResult{Event: pipeline.EventAllDone}, nil
			})

			f.step(t) // intake
			snap := f.snapshot(t)
			status := f.statusBody(t)
			if !tt.skips {
				assert.Empty(t, snap.Skipped)
				assert.NotContains(t, status, "**Path:**")
				if class.SafetyAffecting {
					// The human gate after the specification still
					// precedes code for safety-affecting work.
					require.Equal(t, pipeline.StageArchitecture, snap.Stage)
					res := f.step(t)
					assert.Equal(t, OutcomeWaiting, res.Outcome, "architecture's gate waits for a human")
					return
				}
				results, err := Run(context.Background(), f.deps, f.ref(), 20)
				require.NoError(t, err)
				assert.Equal(t, OutcomeComplete, results[len(results)-1].Outcome)
				assert.Equal(t, 1, f.rec.count(pipeline.StageArchitecture))
				assert.Equal(t, 1, f.rec.count(pipeline.StageInterfaceDesign))
				return
			}
			assert.Equal(t, pipeline.StagePlanning, snap.Stage, "intake leads to planning")
			assert.Equal(t, pipeline.DesignStages(), snap.Skipped)
			assert.Contains(t, status, "**Path:** skips `architecture`, `interface-design`")
			assert.Contains(t, status, "intake --> planning", "the diagram is the variant's")
			assert.NotContains(t, status, "gate_architecture")

			results, err := Run(context.Background(), f.deps, f.ref(), 20)
			require.NoError(t, err)
			assert.Equal(t, OutcomeComplete, results[len(results)-1].Outcome)
			assert.Zero(t, f.rec.count(pipeline.StageArchitecture))
			assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))
			assert.Equal(t, pipeline.DesignStages(), f.snapshot(t).Skipped, "the path stays recorded")
		})
	}
}

// statusBody is the body of the status comment, which holds the snapshot.
func (f *fixture) statusBody(t *testing.T) string {
	t.Helper()
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if _, ok, _ := pipeline.ParseSnapshot(c.Body); ok {
			return c.Body
		}
	}
	t.Fatal("no status comment")
	return ""
}
