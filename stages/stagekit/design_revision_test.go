package stagekit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestChangedSections(t *testing.T) {
	const doc = "# Spec\n\n## Summary\n\nAdd a counter.\n\n## Risks\n\n(none)\n"
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"unchanged", doc, doc, nil},
		{"one section", doc, "# Spec\n\n## Summary\n\nAdd a counter that resets.\n\n## Risks\n\n(none)\n", []string{"Summary"}},
		{"added and removed", doc, "# Spec\n\n## Summary\n\nAdd a counter.\n\n## Decisions\n\nA ring.\n", []string{"Decisions", "Risks (removed)"}},
		{"the title", doc, "# Spec v2\n\n## Summary\n\nAdd a counter.\n\n## Risks\n\n(none)\n", []string{"title"}},
		{"from nothing", "", doc, []string{"title", "Summary", "Risks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ChangedSections(tt.old, tt.new))
		})
	}
}
