package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
)

func TestMermaidGolden(t *testing.T) {
	testkit.Golden(t, filepath.Join("testdata", "pipeline_machine.mmd"), StateMachine().Mermaid("interface-design"))
}

func TestMermaidStructure(t *testing.T) {
	m := StateMachine()
	out := m.Mermaid("gate_interface-design")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Equal(t, "stateDiagram-v2", lines[0])
	assert.Contains(t, out, "  [*] --> wake_up\n")
	assert.Contains(t, out, "  interface_design --> gate_interface_design: guard_interface_design_done\n")
	assert.Contains(t, out, "  exit_complete --> [*]\n")
	assert.Contains(t, out, "  exit_waiting --> [*]\n")
	assert.Contains(t, out, "  classDef current fill:#f9f,stroke:#333\n")
	assert.Equal(t, "  class gate_interface_design current", lines[len(lines)-1])
	assert.Contains(t, out, `  state "interface-design" as interface_design`)

	transitions := 0
	for _, l := range lines {
		if strings.Contains(l, " --> ") && !strings.Contains(l, "[*]") {
			transitions++
			// Outside the quoted display names, no Mermaid id has a '-'.
			from, rest, _ := strings.Cut(strings.TrimSpace(l), " --> ")
			to, _, _ := strings.Cut(rest, ":")
			assert.NotContains(t, from+to, "-", l)
		}
	}
	assert.Equal(t, len(m.Transitions), transitions, "one line per transition")
}

func TestMermaidWithoutCurrent(t *testing.T) {
	for _, current := range []StateID{"", "no-such-state"} {
		out := StateMachine().Mermaid(current)
		assert.NotContains(t, out, "classDef")
		assert.NotContains(t, out, "class ")
	}
}

func TestMermaidID(t *testing.T) {
	assert.Equal(t, "scenario_validation", MermaidID("scenario-validation"))
	assert.Equal(t, "gate_interface_design", MermaidID("gate_interface-design"))
	assert.Equal(t, "wake_up", MermaidID(StateWakeUp))
}
