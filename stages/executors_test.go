package stages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/revision"
)

// *github.Client is the production GitHub port of every executor.
var _ GitHub = (*github.Client)(nil)

// TestExecutorsCoverTheMachine: every operational state of the machine
// has an executor, and no executor waits on a stage the machine never
// enters.
func TestExecutorsCoverTheMachine(t *testing.T) {
	execs := Executors(Deps{})
	states := map[pipeline.Stage]bool{}
	for _, s := range pipeline.StateMachine().States {
		if s.Kind == pipeline.KindOperational {
			states[s.Stage] = true
			assert.NotNil(t, execs[s.Stage], "no executor for state %s", s.ID)
		}
	}
	for st := range execs {
		assert.True(t, states[st], "executor for %s, which no operational state runs", st)
	}
}

// TestReviserOfWiresTheDesignStages: the revision the wiring builds from
// the executors (internal/cmd/factory) revises the specification and
// interface PRs with architecture's and interface design's executors, so
// a review of those PRs is not answered "not wired".
func TestReviserOfWiresTheDesignStages(t *testing.T) {
	var gh *github.Client // never called: the wiring only keeps it
	step, ok := ReviserOf(gh, Executors(Deps{GitHub: gh})).(revision.Step)
	require.True(t, ok)
	assert.IsType(t, architecture.Executor{}, step.Spec)
	assert.IsType(t, interfaces.Executor{}, step.Design)
	assert.IsType(t, architecture.Executor{}, Reviser(Deps{GitHub: gh}).(revision.Step).Spec)
}
