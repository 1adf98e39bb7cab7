package architecture_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

var specModules = stagekit.Modules{Names: []string{"brake", "counter", "firmware", "firmware/motor", "telemetry"}}

func TestAssertARCH001_ValidSpecReferencesPass(t *testing.T) {
	t.Parallel()
	assert.Empty(t, architecture.ValidateSpecification(stagetest.ValidSpec(), specModules, stagetest.SpecConstraints, stagetest.FHRegistry(t)))
}

func TestAssertARCH002_MissingModuleFailsNamingIt(t *testing.T) {
	t.Parallel()
	spec := stagetest.ValidSpec()
	spec.AffectedModules = append(spec.AffectedModules, architecture.SpecModule{Name: "odometer"}, architecture.SpecModule{Name: "firmware/pump"})
	problems := architecture.ValidateSpecification(spec, specModules, stagetest.SpecConstraints, nil)
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0], `affected_modules[3]: module "odometer" does not exist in the repository and is not marked new`)
	assert.Contains(t, problems[1], `module "firmware/pump" does not exist`)
}

func TestAssertARCH003_ForbiddenDependencyFailsNamingConstraint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		from, to string
		change   string
		want     string // "" means no problem
	}{
		{"direct", "brake", "telemetry", "add", `dependency_changes[0]: adding a dependency from "brake" to "telemetry" violates the architectural constraint forbidden_imports {from = "brake", to = "telemetry"}`},
		{"nested packages", "brake/abs", "telemetry/can", "add", `forbidden_imports {from = "brake", to = "telemetry"}`},
		{"import path", "brake", "example.com/widgets/telemetry", "add", "violates the architectural constraint"},
		{"removal is fine", "brake", "telemetry", "remove", ""},
		{"other direction", "telemetry", "brake", "add", ""},
		{"name prefix is not a module", "brakes", "telemetry2", "add", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := stagetest.ValidSpec()
			spec.DependencyChanges = []architecture.SpecDependency{{From: tt.from, To: tt.to, Change: tt.change}}
			problems := architecture.ValidateSpecification(spec, specModules, stagetest.SpecConstraints, nil)
			if tt.want == "" {
				assert.Empty(t, problems)
				return
			}
			require.Len(t, problems, 1)
			assert.Contains(t, problems[0], tt.want)
		})
	}
}

func TestAssertXVAL004_ProposedBusLoadOverMaxFails(t *testing.T) {
	t.Parallel()
	reg := stagetest.FHRegistry(t)
	spec := stagetest.ValidSpec()
	for _, name := range []string{"WheelFL", "WheelFR", "WheelRL", "WheelRR"} {
		spec.ProposedValues = append(spec.ProposedValues,
			architecture.SpecProposedValue{Interface: "SWD-IF-CAN-01", Parameter: "messages." + name + ".size_bytes", Value: 8},
			architecture.SpecProposedValue{Interface: "SWD-IF-CAN-01", Parameter: "messages." + name + ".cycle_ms", Value: 1})
	}
	problems := architecture.ValidateSpecification(spec, specModules, stagetest.SpecConstraints, reg)
	require.Len(t, problems, 1, "%v", problems)
	assert.Contains(t, problems[0], "interface SWD-IF-CAN-01 parameter max_bus_load")
	assert.Contains(t, problems[0], "expected ")
	assert.Contains(t, problems[0], "actual 1.1138 ratio")

	// The same messages at a 100 ms cycle fit the bus.
	for i := range spec.ProposedValues {
		if spec.ProposedValues[i].Value == 1 {
			spec.ProposedValues[i].Value = 100
		}
	}
	assert.Empty(t, architecture.ValidateSpecification(spec, specModules, stagetest.SpecConstraints, reg))
	// Without a registry the proposal is not checked.
	assert.Empty(t, architecture.ValidateSpecification(spec, specModules, stagetest.SpecConstraints, (*xval.Registry)(nil)))
}

func TestRenderSpecificationListsEverySection(t *testing.T) {
	t.Parallel()
	spec := stagetest.ValidSpec()
	spec.ProposedValues = []architecture.SpecProposedValue{{Interface: "SWD-IF-CAN-01", Parameter: "baud_rate", Value: 500000}}
	md := architecture.RenderSpecification(7, "Count | widgets", spec)
	for _, want := range []string{
		"# Specification for #7: Count | widgets", "## Summary", "Add an hourly counter.",
		"- `hourly` (new)", "1. **Use a ring buffer**", "| add | `counter` | `telemetry` |",
		"| overflow | low | uint64 |", "## Required ADRs\n\n(none)", "| `SWD-IF-CAN-01` | `baud_rate` | 500000 |",
	} {
		assert.Contains(t, md, want)
	}
}
