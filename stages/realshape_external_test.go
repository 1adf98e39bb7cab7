//go:build e2e

package stages_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// RealShapeCasesEnv names the directory of external real-shape cases
// (docs/realshape-benchmark.md, "Cases of your own"). The benchmark runs
// them only when it is set: such cases hold other projects' code, which
// the repository does not.
const RealShapeCasesEnv = "COGWORKS_REALSHAPE_CASES"

// externalCase is case.json of an external case directory.
type externalCase struct {
	Title  string `json:"title"`
	Body   string `json:"body"`
	Module string `json:"module"`
	Plan   struct {
		Title   string   `json:"title"`
		Files   []string `json:"files"`
		Symbols []string `json:"symbols"`
	} `json:"plan"`
	// Classification is optional: a low-complexity bug fix by default.
	Classification struct {
		Type       classify.Type `json:"type"`
		Complexity string        `json:"complexity"`
	} `json:"classification"`
	// Service is the case's [[domains]] table (name, preset, setup, ...)
	// for a non-Go repository; "{tools}" in its setup is the case's
	// tools/ directory (a node_modules the sandbox, which has no network,
	// links), bound read-only. Absent: the Go domain service.
	Service  *config.Domain     `json:"service"`
	Fix      codegen.CodeOutput `json:"fix"`
	Scenario struct {
		Package string `json:"package"`
		To      string `json:"to"`
		Filter  string `json:"filter"`
	} `json:"scenario"`
}

// loadExternalCase reads the case in dir (see docs/realshape-benchmark.md
// for the format): case.json, the base tree in repo/ and the held-out
// test in scenario_test.go.
func loadExternalCase(dir string) (realCase, error) {
	name := filepath.Base(dir)
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		return realCase{}, fmt.Errorf("load real-shape case %s: %w", name, err)
	}
	var ec externalCase
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ec); err != nil {
		return realCase{}, fmt.Errorf("load real-shape case %s: case.json: %w", name, err)
	}
	var problems []string
	for field, v := range map[string]string{"title": ec.Title, "module": ec.Module, "scenario.package": ec.Scenario.Package,
		"scenario.to": ec.Scenario.To, "scenario.filter": ec.Scenario.Filter} {
		if strings.TrimSpace(v) == "" {
			problems = append(problems, field+" is empty")
		}
	}
	if len(ec.Plan.Files) == 0 || len(ec.Plan.Symbols) == 0 {
		problems = append(problems, "plan.files and plan.symbols must name at least one each")
	}
	if len(ec.Fix.Edits)+len(ec.Fix.Files)+len(ec.Fix.Deletes)+len(ec.Fix.Renames) == 0 {
		problems = append(problems, "fix changes nothing")
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return realCase{}, fmt.Errorf("load real-shape case %s: case.json: %s", name, strings.Join(problems, "; "))
	}
	// The held-out test is scenario_test.go, or scenario<suffix> of the
	// case's language (scenario_test.py, scenario.test.ts).
	matches, err := filepath.Glob(filepath.Join(dir, "scenario*"))
	if err != nil || len(matches) != 1 {
		return realCase{}, fmt.Errorf("load real-shape case %s: want one scenario* file, found %d", name, len(matches))
	}
	scenario, err := os.ReadFile(matches[0])
	if err != nil {
		return realCase{}, fmt.Errorf("load real-shape case %s: %w", name, err)
	}
	suffix := strings.TrimPrefix(filepath.Base(matches[0]), "scenario")
	if ec.Service != nil {
		// Stored under .cogworks/scenarios by a name no test runner
		// collects: vitest's default include takes x.test.ts in any
		// directory, the hidden ones too, and would run the held-out
		// file where it lies in scenario validation (imports broken).
		suffix = ".heldout" + filepath.Ext(suffix)
	}
	var toolDirs []string
	if ec.Service != nil {
		tools := filepath.Join(dir, "tools")
		// Resolved: tools may link to a directory the cases share, and
		// the sandbox binds the real one.
		if abs, err := filepath.Abs(tools); err == nil {
			tools = abs
		}
		if real, err := filepath.EvalSymlinks(tools); err == nil {
			tools = real
		}
		if _, err := os.Stat(tools); err == nil {
			toolDirs = []string{tools}
		}
		ec.Service.Setup = strings.ReplaceAll(ec.Service.Setup, "{tools}", tools)
	}
	// The interface design names the first Go source file of the plan, as
	// it is: a bug fix changes no interface.
	apiFile := ec.Plan.Files[0]
	for _, f := range ec.Plan.Files {
		if stagekit.IsPackageSource(path.Base(f)) {
			apiFile = f
			break
		}
	}
	title := cmp.Or(strings.TrimSpace(ec.Plan.Title), ec.Title)
	return realCase{
		name: name, dir: filepath.Join(dir, "repo"), scenarioSource: string(scenario),
		title: ec.Title, body: strings.TrimSpace(ec.Body) + "\n\n" + realIssueMarker, module: ec.Module,
		api: pipeline.InterfaceDecl{ID: "IF-" + strings.ToUpper(name), Name: ec.Plan.Symbols[0], File: apiFile, Summary: "existing API"},
		// The format names no planned tests: the tests the fix declares are the required ones
		// (the scenario's filter names a held-out test code generation never runs).
		plan:        planner.SubWorkItem{ID: name, Title: title, Description: title + ", and test it.", Files: ec.Plan.Files, Symbols: ec.Plan.Symbols, Tests: "", DependsOn: []string{}},
		fix:         ec.Fix,
		scenarioPkg: ec.Scenario.Package, scenarioTo: ec.Scenario.To, scenarioFilter: ec.Scenario.Filter,
		want:     realOutcome{completed: true},
		external: true,
		service:  ec.Service, toolDirs: toolDirs, scenarioSuffix: suffix,
		classType: ec.Classification.Type, complexity: ec.Classification.Complexity,
	}, nil
}

// externalCases loads every case directory under dir, sorted by name.
func externalCases(t *testing.T, dir string) []realCase {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "read %s=%s", RealShapeCasesEnv, dir)
	var cases []realCase
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		c, err := loadExternalCase(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		cases = append(cases, c)
	}
	require.NotEmpty(t, cases, "%s=%s holds no case directory", RealShapeCasesEnv, dir)
	return cases
}

// TestRealShapeExternal runs the real-shape measurement over the cases in
// $COGWORKS_REALSHAPE_CASES (merged fixes of real projects, kept outside
// the repository) and asserts the benchmark's targets for each: it
// completes with an exact tree, the fix's tests ran, recall is 100 % and
// the issue text reached code generation. -run TestRealShapeExternal/<case>
// runs one case.
func TestRealShapeExternal(t *testing.T) {
	dir := os.Getenv(RealShapeCasesEnv)
	if dir == "" {
		t.Skipf("%s is not set: no external cases", RealShapeCasesEnv)
	}
	if testing.Short() {
		t.Skip("runs the Go toolchain through the whole pipeline for every case")
	}
	results := runRealCases(t, externalCases(t, dir))
	for _, r := range results {
		if r.name != "" && len(r.treeDiff) > 0 {
			t.Logf("%s: tree differs from base + fix: %s", r.name, strings.Join(r.treeDiff, ", "))
		}
	}
	assert.NotEmpty(t, results)
}

// TestRealShapeExternalCaseFormat writes the built-in pathcmp case in the
// external format and runs it as an external case: the format carries
// everything a case needs, and a case that breaks it is refused by name.
func TestRealShapeExternalCaseFormat(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the Go toolchain through the whole pipeline")
	}
	var builtin realCase
	for _, c := range realshapeCases() {
		if c.name == "pathcmp" {
			builtin = c
		}
	}
	dir := filepath.Join(t.TempDir(), "pathcmp-external")
	base := realBase(t, builtin)
	repo := map[string]string{}
	for p, content := range base {
		if !strings.HasPrefix(p, ".cogworks/") {
			repo[p] = content
		}
	}
	testkit.WriteTree(t, filepath.Join(dir, "repo"), repo)
	scenario := base[".cogworks/scenarios/pathcmp_test.go"]
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scenario_test.go"), []byte(scenario), 0o644))
	ec := map[string]any{
		"title": builtin.title, "body": "Base(\"a/b/c.go\") returns \"/c.go\".", "module": builtin.module,
		"plan":     map[string]any{"title": builtin.plan.Title, "files": builtin.plan.Files, "symbols": builtin.plan.Symbols},
		"fix":      builtin.fix,
		"scenario": map[string]string{"package": builtin.scenarioPkg, "to": builtin.scenarioTo, "filter": builtin.scenarioFilter},
	}
	raw, err := json.Marshal(ec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case.json"), raw, 0o644))

	c, err := loadExternalCase(dir)
	require.NoError(t, err)
	assert.Equal(t, "where/where.go", c.api.File, "the interface design names the first Go source of the plan")
	r := runRealCase(t, c, stagetest.StartGoService(t))
	realAssert(t, c, r)
	assert.True(t, r.exactTree)

	ec["scenario"] = map[string]string{"package": "./where"}
	ec["extra"] = true
	raw, err = json.Marshal(ec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case.json"), raw, 0o644))
	_, err = loadExternalCase(dir)
	assert.ErrorContains(t, err, `unknown field "extra"`)
	delete(ec, "extra")
	raw, err = json.Marshal(ec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "case.json"), raw, 0o644))
	_, err = loadExternalCase(dir)
	assert.ErrorContains(t, err, "scenario.filter is empty; scenario.to is empty")
}
