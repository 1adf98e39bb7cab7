package llm

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
)

// TestProviderDefaultsAreCurrent keeps the hosted providers' default
// models (config.ProviderDefaults, which `cogworks init` writes and the
// README's provider table names) in the shipped table, with no retirement
// date and priced: a default the table retires would make every new
// installation warn, then stop, and an unpriced one fails closed. It
// guards the next refresh of models.json and the README's claim.
func TestProviderDefaultsAreCurrent(t *testing.T) {
	t.Parallel()
	table, err := BuiltinModelTable()
	require.NoError(t, err)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	for _, provider := range []string{ProviderAnthropic, ProviderOpenAI} {
		def, ok := config.ProviderDefaults(provider)
		require.True(t, ok, provider)
		info, ok := table.Lookup(def.Model)
		require.True(t, ok, "%s default %s is not in the shipped table", provider, def.Model)
		assert.Empty(t, info.DeprecationDate, "%s default %s has a retirement date", provider, def.Model)
		assert.Positive(t, info.Price().InputPerMTok, "%s default %s is unpriced", provider, def.Model)
		assert.Contains(t, string(readme), "| `"+provider+"` | `"+def.Model+"`", "README's provider table names the %s default", provider)
	}
}
