package stages

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/pipeline"
)

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
