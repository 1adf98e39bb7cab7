package stagetest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// FHSampleRepo is the small Go module the issue-to-plan tests work on.
var FHSampleRepo = map[string]string{
	"go.mod":                    "module example.com/widgets\n\ngo 1.22\n",
	"counter/counter.go":        "// Package counter counts widgets.\npackage counter\n\n// Count is the number of widgets seen.\nvar Count int\n",
	"brake/brake.go":            "// Package brake controls the brakes.\npackage brake\n\n// Engaged reports whether the brake is on.\nfunc Engaged() bool { return false }\n",
	"telemetry/telemetry.go":    "// Package telemetry reports metrics.\npackage telemetry\n",
	"firmware/motor/motor.go":   "// Package motor drives the motor.\npackage motor\n",
	"docs/adr/0001-layering.md": "# ADR 1: layering\n\nbrake never imports telemetry.\n",
	"CONTRIBUTING.md":           "# Contributing\n\nWrite table-driven tests.\n",
}

// FHFixture is a simulator, a workspace with the sample repository, a
// scripted LLM and issue-to-plan Deps.
type FHFixture struct {
	Env    *testenv.Env
	ws     string
	Script *llm.Scripted
	Deps   stages.Deps
	Cfg    config.Config
	Issue  int
}

// NewFHFixture seeds a repository with the test registry (and extra files) and an issue, and returns the issue-to-plan fixture.
func NewFHFixture(t *testing.T, extra map[string]string, opts ...githubsim.Option) *FHFixture {
	t.Helper()
	env := testenv.New(t, opts...)
	files := map[string]string{}
	for p, c := range FHSampleRepo {
		files[p] = c
	}
	for p, c := range extra {
		files[p] = c
	}
	ws := t.TempDir()
	for p, c := range files {
		full := filepath.Join(ws, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	require.NotEmpty(t, env.Sim.SeedFiles(testenv.Repo.String(), "main", files))
	script := llm.NewScripted()
	gw := llm.NewGateway(script, prompts.Set{})
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Count widgets per hour",
		"We need an hourly widget counter exposed through telemetry.")
	return &FHFixture{Env: env, ws: ws, Script: script, Issue: n, Cfg: config.Default(), Deps: stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{
		LLM: gw, Workspace: ws, Clock: env.Clock.Now,
	}}}
}

// Input builds the StageInput of stage for the fixture's issue.
func (f *FHFixture) Input(t *testing.T, stage pipeline.Stage, snap *pipeline.Snapshot) engine.StageInput {
	t.Helper()
	issue, err := f.Env.Client.GetIssue(context.Background(), testenv.Repo, f.Issue)
	require.NoError(t, err)
	return engine.StageInput{Repo: testenv.Repo, Issue: issue, Stage: stage, Snapshot: snap, Config: f.Cfg, RunID: "run-1", BotLogin: testenv.Bot}
}

// Snapshot is a fresh snapshot of the fixture's issue.
func (f *FHFixture) Snapshot() *pipeline.Snapshot {
	s := pipeline.NewSnapshot(testenv.Repo.String(), f.Issue)
	return &s
}

// Run executes stage's executor.
func (f *FHFixture) Run(t *testing.T, stage pipeline.Stage, snap *pipeline.Snapshot) (engine.StageResult, error) {
	t.Helper()
	return Execute(context.Background(), stages.Executors(f.Deps)[stage], f.Input(t, stage, snap))
}

// AddJSON scripts v as the JSON answer to the next request of template.
func (f *FHFixture) AddJSON(t *testing.T, template string, v any) {
	t.Helper()
	require.NoError(t, f.Script.AddJSON(template, v))
}

// UserPrompt returns the concatenated user messages of the i-th request
// for template.
func (f *FHFixture) UserPrompt(t *testing.T, template string, i int) string {
	t.Helper()
	var seen int
	for _, r := range f.Script.Requests() {
		if r.Template != template {
			continue
		}
		if seen == i {
			out := ""
			for _, m := range r.Messages {
				out += m.Content + "\n"
			}
			return out
		}
		seen++
	}
	t.Fatalf("no request %d for template %s", i, template)
	return ""
}

// Requests counts the LLM requests made with template.
func (f *FHFixture) Requests(template string) int {
	n := 0
	for _, r := range f.Script.Requests() {
		if r.Template == template {
			n++
		}
	}
	return n
}

// FHWrites counts the non-GET requests the simulator saw.
func FHWrites(sim *githubsim.Server) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// FHRegistry loads the xval test registry (SWD-IF-CAN-01 at 500 kbit/s,
// max_bus_load 0.5).
func FHRegistry(t *testing.T) *xval.Registry {
	t.Helper()
	reg, err := xval.LoadRegistry(xvalRegistryDir(t))
	require.NoError(t, err)
	return reg
}

// FHRegistryFiles returns the xval test registry's files keyed by their
// repository path under .cogworks/interfaces.
func FHRegistryFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := xvalRegistryDir(t)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[".cogworks/interfaces/"+e.Name()] = string(b)
	}
	return out
}

// findKeyIn returns the comment key of a bot comment body.
func findKeyIn(body string) (string, bool) { return audit.FindKey(body) }

// key2 is the comment key of work item n.
func key2(n int, parts ...string) string { return stagekit.Key(n, parts...) }

// Itoa is strconv.Itoa.
func Itoa(n int) string { return strconv.Itoa(n) }

// IssueToPlanExecutors returns the executors of intake to planning only,
// so the engine stops when the plan is made (code generation has none).
func IssueToPlanExecutors(d stages.Deps) map[pipeline.Stage]engine.StageExecutor {
	all := stages.Executors(d)
	out := map[pipeline.Stage]engine.StageExecutor{}
	for _, st := range []pipeline.Stage{pipeline.StageIntake, pipeline.StageArchitecture, pipeline.StageInterfaceDesign, pipeline.StagePlanning} {
		out[st] = all[st]
	}
	return out
}

// SampleClassification is a valid classification of the fixture issue.
var SampleClassification = classify.Classification{
	Type: classify.TypeFeature, AffectedModules: []string{"counter"},
	EstimatedScope: classify.Scope{Files: 3, Interfaces: 1, Complexity: "low"}, Rationale: "Small feature.",
}

// SpecConstraints forbids brake from importing telemetry.
var SpecConstraints = config.Constraints{ForbiddenImports: []config.ForbiddenImport{{From: "brake", To: "telemetry"}}}

// ValidSpec is a specification that passes validation against the test registry.
func ValidSpec() architecture.Specification {
	return architecture.Specification{
		Summary:           "Add an hourly counter.",
		AffectedModules:   []architecture.SpecModule{{Name: "counter"}, {Name: "./firmware/motor/"}, {Name: "hourly", New: true}},
		DesignDecisions:   []architecture.SpecDecision{{Decision: "Use a ring buffer", Rationale: "bounded memory"}},
		DependencyChanges: []architecture.SpecDependency{{From: "counter", To: "telemetry", Change: "add"}, {From: "brake", To: "telemetry", Change: "remove"}},
		Risks:             []architecture.SpecRisk{{Risk: "overflow", Severity: "low", Mitigation: "uint64"}},
		RequiredADRs:      []string{},
	}
}

// PlanningSnapshot is a snapshot after interface design, with the spec on
// its branch.
func (f *FHFixture) PlanningSnapshot(t *testing.T) *pipeline.Snapshot {
	t.Helper()
	f.Env.Sim.SeedFiles(testenv.Repo.String(), stagekit.SpecBranch(f.Issue), map[string]string{stagekit.SpecPath(f.Issue): "# Spec\n\n## Summary\n\nHourly counter.\n"})
	snap := f.Snapshot()
	snap.Interfaces = planDecls
	snap.Artifacts.SpecBranch = stagekit.SpecBranch(f.Issue)
	return snap
}

// GoodPlan is a valid plan: C has no dependencies, A depends on C, B on A.
var GoodPlan = planner.Plan{SubWorkItems: []planner.SubWorkItem{
	Item("A", []string{"IF-1"}, "C"), Item("B", []string{"IF-2"}, "A"), Item("C", nil),
}}

// ClassificationComment returns the body of the classification comment.
func (f *FHFixture) ClassificationComment(t *testing.T) string {
	t.Helper()
	var found []string
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Issue) {
		if key, ok := findKeyIn(c.Body); ok && key == key2(f.Issue, "classification") {
			found = append(found, c.Body)
		}
	}
	require.Len(t, found, 1, "exactly one classification comment")
	return found[0]
}

// StatusSnapshot parses the snapshot from the status comment.
func (f *FHFixture) StatusSnapshot(t *testing.T) pipeline.Snapshot {
	t.Helper()
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Issue) {
		if s, ok, err := pipeline.ParseSnapshot(c.Body); ok {
			require.NoError(t, err)
			return s
		}
	}
	t.Fatalf("no snapshot on #%d", f.Issue)
	return pipeline.Snapshot{}
}

var planDecls = []pipeline.InterfaceDecl{
	{ID: "IF-1", Name: "HourlyCounter", File: "counter/hourly.go", Summary: "counts per hour"},
	{ID: "IF-2", Name: "Report", File: "telemetry/report.go", Summary: "reports counts"},
}

// Item is a sub-work item with the given interfaces and dependencies.
func Item(id string, ifaces []string, deps ...string) planner.SubWorkItem {
	// JSON arrays, never null: the schema requires them.
	ifaces = append([]string{}, ifaces...)
	deps = append([]string{}, deps...)
	return planner.SubWorkItem{ID: id, Title: "Item " + id, Description: "Do " + id, Files: []string{id + ".go"},
		Symbols: []string{}, Interfaces: ifaces, Tests: "unit tests", DependsOn: deps}
}

// Design is an interface design answer with one file.
func Design(path, content string) interfaces.Interfaces {
	return interfaces.Interfaces{
		Files:      []interfaces.InterfaceFile{{Path: path, Content: content}},
		Interfaces: []pipeline.InterfaceDecl{{ID: "IF-1", Name: "Hourly", File: path, Summary: "hourly counter"}},
	}
}

// GoodInterface is a Go interface file that compiles.
const GoodInterface = "package counter\n\n// Hourly counts widgets per hour.\ntype Hourly interface {\n\tAdd(n int)\n}\n"

// xvalRegistryDir is xval's test registry, found from this file's own
// directory so that a test of any package under stages/ can load it.
func xvalRegistryDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok, "no caller information")
	return filepath.Join(filepath.Dir(file), "..", "..", "xval", "testdata", "good", ".cogworks", "interfaces")
}
