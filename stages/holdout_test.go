package stages

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scenarioPkg declares the held-out scenarios' types and their loader.
const scenarioPkg = "github.com/cogworks/cogworks/internal/scenario"

// scenarioImporters returns the non-test Go files directly in dir that
// import the scenario package: the only way a file can name
// scenario.Scenario or call scenario.LoadScenarios.
func scenarioImporters(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, is := range af.Imports {
			if p, _ := strconv.Unquote(is.Path.Value); p == scenarioPkg {
				out = append(out, f)
			}
		}
	}
	return out
}

// TestOnlyScenarioStageNamesScenarios: the held-out scenarios are kept from
// code generation (and every other stage) by type, not by convention. Of
// the packages under stages/, only stages/scenario imports the scenario
// package; stages itself names it only to hand the scenarios to that
// stage (Deps, Executors). A new stage package is checked as soon as its
// directory exists.
func TestOnlyScenarioStageNamesScenarios(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	checked := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		got := scenarioImporters(t, e.Name())
		if e.Name() == "scenario" {
			// The positive control: the check does see an importer.
			assert.NotEmpty(t, got, "stages/scenario loads the scenarios, so the check must find its import")
			continue
		}
		checked++
		assert.Empty(t, got, "stages/%s must not name the held-out scenarios", e.Name())
	}
	assert.GreaterOrEqual(t, checked, 9, "the seven other stages, stagekit and stagetest")
}
