package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

// FuzzParse feeds arbitrary text to the .cogworks/config.toml parser (the
// file is repository content, so anyone who can open a PR writes it).
// Properties: no panic; an accepted config is valid; re-encoding it as
// TOML and parsing that again gives the same config.
func FuzzParse(f *testing.F) {
	full, err := os.ReadFile(filepath.Join("testdata", "full.toml"))
	require.NoError(f, err)
	f.Add(string(full))
	f.Add("")
	f.Add("[pipeline]\nlock_timeout = \"-5m\"\n")
	f.Add("[gates]\nplanning = \"sometimes\"\n")
	f.Add("[budgets]\npipeline_max_cost_usd = nan\n")
	f.Add("[llm]\nprovider = \"openai\"\nmodel = \"\"\n[[constraints.forbidden_imports]]\nmodule = \"x\"\n")
	f.Add("unknown = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		cfg, err := Parse("config.toml", []byte(text))
		if err != nil {
			return
		}
		require.NoError(t, cfg.Validate())
		var buf bytes.Buffer
		require.NoError(t, toml.NewEncoder(&buf).Encode(cfg))
		again, err := Parse("config.toml", buf.Bytes())
		require.NoError(t, err, "re-encoded config:\n%s", buf.String())
		require.Equal(t, cfg, again)
	})
}
