package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDesignBasisDigest(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec := map[string]string{"docs/cogworks/7-specification.md": "# Spec\n\nA.\n", "api/if.go": "package api\n"}
	tests := []struct {
		name string
		now  map[string]string
		same bool
	}{
		{"unchanged", map[string]string{"api/if.go": "package api\n", "docs/cogworks/7-specification.md": "# Spec\n\nA.\n"}, true},
		{"the spec amended", map[string]string{"api/if.go": "package api\n", "docs/cogworks/7-specification.md": "# Spec\n\nB.\n"}, false},
		{"an interface file gone", map[string]string{"api/if.go": "", "docs/cogworks/7-specification.md": "# Spec\n\nA.\n"}, false},
		{"a file added", map[string]string{"api/if.go": "package api\n", "docs/cogworks/7-specification.md": "# Spec\n\nA.\n", "api/x.go": "package api\n"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, NewDesignBasis(spec, at).Same(NewDesignBasis(tc.now, at.Add(time.Hour))))
		})
	}
}

func TestDesignBasisOmitsLongText(t *testing.T) {
	long := NewDesignBasis(map[string]string{"spec.md": strings.Repeat("x", MaxKeptText+1)}, time.Time{})
	assert.True(t, long.Omitted)
	assert.Empty(t, long.Files[0].Text)
	assert.NotEmpty(t, long.Files[0].SHA256)
	short := NewDesignBasis(map[string]string{"spec.md": "x"}, time.Time{})
	assert.Equal(t, "x", short.Files[0].Text)
}

// A 4.3.0 snapshot has no design pin and reads as before; the 4.4 fields
// round-trip.
func TestParseSnapshotReads43WithoutDesign(t *testing.T) {
	got, found, err := ParseSnapshot(`<!-- cogworks:state {"schema_version":"4.3.0","repo":"a/b","work_item":3,"stage":"code-generation"} -->`)
	require.NoError(t, err)
	require.True(t, found)
	assert.Nil(t, got.Design)
	assert.Nil(t, got.Amended)

	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := NewDesignBasis(map[string]string{"spec.md": "a -- <b>"}, at)
	a := NewDesignBasis(map[string]string{"spec.md": "c"}, at)
	got.SchemaVersion, got.Design, got.Amended = SchemaVersion, &d, &a
	body, err := RenderSnapshot(got)
	require.NoError(t, err)
	again, _, err := ParseSnapshot(body)
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

// TestStateMachineReplanEdges: only an item in a per-SWI stage re-plans, only on an
// amendment that differs from the pin, and the re-plan resumes code
// generation.
func TestStateMachineReplanEdges(t *testing.T) {
	m := StateMachine()
	s, ok := m.State(StateReplan)
	require.True(t, ok)
	assert.Equal(t, KindSide, s.Kind)
	pin := NewDesignBasis(map[string]string{"spec.md": "a"}, time.Time{})
	amended := NewDesignBasis(map[string]string{"spec.md": "b"}, time.Time{})
	tests := []struct {
		name    string
		from    StateID
		on      Event
		in      GuardInput
		want    StateID
		wantErr bool
	}{
		{"an approved amendment", StateWakeUp, EventAmended, GuardInput{Snapshot: Snapshot{Stage: StageIntegration, Design: &pin, Amended: &amended}}, StateReplan, false},
		{"an amendment equal to the pin", StateWakeUp, EventAmended, GuardInput{Snapshot: Snapshot{Stage: StageCodeGeneration, Design: &pin, Amended: &pin}}, "", true},
		{"no pin", StateWakeUp, EventAmended, GuardInput{Snapshot: Snapshot{Stage: StageReview, Amended: &amended}}, "", true},
		{"before the plan", StateWakeUp, EventAmended, GuardInput{Snapshot: Snapshot{Stage: StagePlanning, Design: &pin, Amended: &amended}}, "", true},
		{"re-planned", StateReplan, EventReplanned, GuardInput{}, StateForStage(StageCodeGeneration), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := m.Fire(tc.from, tc.on, tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, tr.To)
		})
	}
}
