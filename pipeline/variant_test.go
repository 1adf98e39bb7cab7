package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
)

func TestSkipPolicyDesignSkip(t *testing.T) {
	p := SkipPolicy{Types: []classify.Type{classify.TypeBugFix}, MaxComplexity: "low"}
	c := func(typ classify.Type, complexity string, safety bool) *classify.Classification {
		return &classify.Classification{Type: typ, EstimatedScope: classify.Scope{Complexity: complexity}, SafetyAffecting: safety}
	}
	tests := []struct {
		name  string
		p     SkipPolicy
		class *classify.Classification
		want  []Stage
	}{
		{name: "low bug fix", p: p, class: c(classify.TypeBugFix, "low", false), want: DesignStages()},
		{name: "medium bug fix", p: p, class: c(classify.TypeBugFix, "medium", false)},
		{name: "unknown complexity", p: p, class: c(classify.TypeBugFix, "", false)},
		{name: "feature", p: p, class: c(classify.TypeFeature, "low", false)},
		{name: "safety-affecting", p: p, class: c(classify.TypeBugFix, "low", true)},
		{name: "unclassified", p: p},
		{name: "off", p: SkipPolicy{MaxComplexity: "high"}, class: c(classify.TypeBugFix, "low", false)},
		{name: "high threshold", p: SkipPolicy{Types: p.Types, MaxComplexity: "high"}, class: c(classify.TypeBugFix, "high", false), want: DesignStages()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.p.DesignSkip(tt.class))
		})
	}
}

// TestMachineVariant: the variant drops the skipped stages whatever their
// order, equals the table for no stages and refuses an unknown stage.
func TestMachineVariant(t *testing.T) {
	full := StateMachine()
	same, err := full.Variant(nil)
	require.NoError(t, err)
	assert.Equal(t, full.Transitions, same.Transitions)
	assert.Equal(t, full.States, same.States)

	a, err := full.Variant([]Stage{StageInterfaceDesign, StageArchitecture})
	require.NoError(t, err)
	b, err := full.Variant(DesignStages())
	require.NoError(t, err)
	assert.Equal(t, a.Transitions, b.Transitions)
	assert.Equal(t, a.States, b.States)
	_, ok := a.State(StateForStage(StageArchitecture))
	assert.False(t, ok)
	tr, err := a.Fire(GateState(StageIntake), EventGatePassed, GuardInput{GateMode: AutoProceed})
	require.NoError(t, err)
	assert.Equal(t, StateForStage(StagePlanning), tr.To)

	noArch, err := full.Skip(StageArchitecture)
	require.NoError(t, err)
	c, err := noArch.Variant(DesignStages())
	require.NoError(t, err, "a table that already lacks a skipped stage")
	assert.Equal(t, a.Transitions, c.Transitions)

	_, err = full.Variant([]Stage{"design"})
	require.ErrorContains(t, err, `unknown stage "design"`)
}
