package stages

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
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
