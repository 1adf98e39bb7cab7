package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPipelineSkipDesignKeys: the design skip is on for low-complexity bug
// fixes by default, [] turns it off, and unknown values name their key.
func TestPipelineSkipDesignKeys(t *testing.T) {
	tests := []struct {
		name       string
		toml       string
		types      []string
		complexity string
		err        string
	}{
		{name: "default", types: []string{"bug_fix"}, complexity: "low"},
		{name: "off", toml: "[pipeline]\nskip_design_for = []\n", types: []string{}, complexity: "low"},
		{name: "wider", toml: "[pipeline]\nskip_design_for = [\"bug_fix\", \"documentation\"]\nskip_design_max_complexity = \"medium\"\n",
			types: []string{"bug_fix", "documentation"}, complexity: "medium"},
		{name: "unknown type", toml: "[pipeline]\nskip_design_for = [\"bugfix\"]\n", err: `pipeline.skip_design_for: unknown type "bugfix"`},
		{name: "unknown complexity", toml: "[pipeline]\nskip_design_max_complexity = \"tiny\"\n", err: `pipeline.skip_design_max_complexity: must be one of low, medium, high, got "tiny"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse("config.toml", []byte(tt.toml))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "config.toml")
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.types, cfg.Pipeline.SkipDesignFor)
			assert.Equal(t, tt.complexity, cfg.Pipeline.SkipDesignMaxComplexity)
		})
	}
}
