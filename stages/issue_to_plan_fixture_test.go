package stages

import (
	"context"
	"os"
	"path/filepath"
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
)

// fhSampleRepo is the small Go module the issue-to-plan tests work on.
var fhSampleRepo = map[string]string{
	"go.mod":                    "module example.com/widgets\n\ngo 1.22\n",
	"counter/counter.go":        "// Package counter counts widgets.\npackage counter\n\n// Count is the number of widgets seen.\nvar Count int\n",
	"brake/brake.go":            "// Package brake controls the brakes.\npackage brake\n\n// Engaged reports whether the brake is on.\nfunc Engaged() bool { return false }\n",
	"telemetry/telemetry.go":    "// Package telemetry reports metrics.\npackage telemetry\n",
	"firmware/motor/motor.go":   "// Package motor drives the motor.\npackage motor\n",
	"docs/adr/0001-layering.md": "# ADR 1: layering\n\nbrake never imports telemetry.\n",
	"CONTRIBUTING.md":           "# Contributing\n\nWrite table-driven tests.\n",
}

// fhFixture is a simulator, a workspace with the sample repository, a
// scripted LLM and issue-to-plan Deps.
type fhFixture struct {
	env    *testenv.Env
	ws     string
	script *llm.Scripted
	deps   Deps
	cfg    config.Config
	issue  int
}

func newFHFixture(t *testing.T, extra map[string]string, opts ...githubsim.Option) *fhFixture {
	t.Helper()
	env := testenv.New(t, opts...)
	files := map[string]string{}
	for p, c := range fhSampleRepo {
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
	return &fhFixture{env: env, ws: ws, script: script, issue: n, cfg: config.Default(), deps: Deps{
		GitHub: env.Client, LLM: gw, Workspace: ws, Clock: env.Clock.Now,
	}}
}

// input builds the StageInput of stage for the fixture's issue.
func (f *fhFixture) input(t *testing.T, stage pipeline.Stage, snap *pipeline.Snapshot) engine.StageInput {
	t.Helper()
	issue, err := f.env.Client.GetIssue(context.Background(), testenv.Repo, f.issue)
	require.NoError(t, err)
	return engine.StageInput{Repo: testenv.Repo, Issue: issue, Stage: stage, Snapshot: snap, Config: f.cfg, RunID: "run-1", BotLogin: testenv.Bot}
}

func (f *fhFixture) snapshot() *pipeline.Snapshot {
	s := pipeline.NewSnapshot(testenv.Repo.String(), f.issue)
	return &s
}

// run executes stage's executor.
func (f *fhFixture) run(t *testing.T, stage pipeline.Stage, snap *pipeline.Snapshot) (engine.StageResult, error) {
	t.Helper()
	return Executors(f.deps)[stage].Execute(context.Background(), f.input(t, stage, snap))
}

func (f *fhFixture) addJSON(t *testing.T, template string, v any) {
	t.Helper()
	require.NoError(t, f.script.AddJSON(template, v))
}

// userPrompt returns the concatenated user messages of the i-th request
// for template.
func (f *fhFixture) userPrompt(t *testing.T, template string, i int) string {
	t.Helper()
	var seen int
	for _, r := range f.script.Requests() {
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

func (f *fhFixture) requests(template string) int {
	n := 0
	for _, r := range f.script.Requests() {
		if r.Template == template {
			n++
		}
	}
	return n
}

// writes counts the non-GET requests the simulator saw.
func fhWrites(sim *githubsim.Server) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// fhRegistry loads the xval test registry (SWD-IF-CAN-01 at 500 kbit/s,
// max_bus_load 0.5).
func fhRegistry(t *testing.T) *xval.Registry {
	t.Helper()
	reg, err := xval.LoadRegistry(filepath.Join("..", "xval", "testdata", "good", ".cogworks", "interfaces"))
	require.NoError(t, err)
	return reg
}

// fhRegistryFiles returns the xval test registry's files keyed by their
// repository path under .cogworks/interfaces.
func fhRegistryFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "xval", "testdata", "good", ".cogworks", "interfaces")
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
func key2(n int, parts ...string) string { return key(n, parts...) }

func itoa(n int) string { return strconv.Itoa(n) }

// issueToPlanExecutors returns the executors of intake to planning only,
// so the engine stops when the plan is made (code generation has none).
func issueToPlanExecutors(d Deps) map[pipeline.Stage]engine.StageExecutor {
	all := Executors(d)
	out := map[pipeline.Stage]engine.StageExecutor{}
	for _, st := range []pipeline.Stage{pipeline.StageIntake, pipeline.StageArchitecture, pipeline.StageInterfaceDesign, pipeline.StagePlanning} {
		out[st] = all[st]
	}
	return out
}

var sampleClassification = classify.Classification{
	Type: classify.TypeFeature, AffectedModules: []string{"counter"},
	EstimatedScope: classify.Scope{Files: 3, Interfaces: 1, Complexity: "low"}, Rationale: "Small feature.",
}

var specConstraints = config.Constraints{ForbiddenImports: []config.ForbiddenImport{{From: "brake", To: "telemetry"}}}

func validSpec() Specification {
	return Specification{
		Summary:           "Add an hourly counter.",
		AffectedModules:   []SpecModule{{Name: "counter"}, {Name: "./firmware/motor/"}, {Name: "hourly", New: true}},
		DesignDecisions:   []SpecDecision{{Decision: "Use a ring buffer", Rationale: "bounded memory"}},
		DependencyChanges: []SpecDependency{{From: "counter", To: "telemetry", Change: "add"}, {From: "brake", To: "telemetry", Change: "remove"}},
		Risks:             []SpecRisk{{Risk: "overflow", Severity: "low", Mitigation: "uint64"}},
		RequiredADRs:      []string{},
	}
}

// planningSnapshot is a snapshot after interface design, with the spec on
// its branch.
func (f *fhFixture) planningSnapshot(t *testing.T) *pipeline.Snapshot {
	t.Helper()
	f.env.Sim.SeedFiles(testenv.Repo.String(), specBranch(f.issue), map[string]string{specPath(f.issue): "# Spec\n\n## Summary\n\nHourly counter.\n"})
	snap := f.snapshot()
	snap.Interfaces = planDecls
	snap.Artifacts.SpecBranch = specBranch(f.issue)
	return snap
}

// goodPlan: C has no dependencies, A depends on C, B on A.
var goodPlan = planner.Plan{SubWorkItems: []planner.SubWorkItem{
	item("A", []string{"IF-1"}, "C"), item("B", []string{"IF-2"}, "A"), item("C", nil),
}}

// classificationComment returns the body of the classification comment.
func (f *fhFixture) classificationComment(t *testing.T) string {
	t.Helper()
	var found []string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if key, ok := findKeyIn(c.Body); ok && key == key2(f.issue, "classification") {
			found = append(found, c.Body)
		}
	}
	require.Len(t, found, 1, "exactly one classification comment")
	return found[0]
}

// statusSnapshot parses the snapshot from the status comment.
func (f *fhFixture) statusSnapshot(t *testing.T) pipeline.Snapshot {
	t.Helper()
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if s, ok, err := pipeline.ParseSnapshot(c.Body); ok {
			require.NoError(t, err)
			return s
		}
	}
	t.Fatalf("no snapshot on #%d", f.issue)
	return pipeline.Snapshot{}
}

var planDecls = []pipeline.InterfaceDecl{
	{ID: "IF-1", Name: "HourlyCounter", File: "counter/hourly.go", Summary: "counts per hour"},
	{ID: "IF-2", Name: "Report", File: "telemetry/report.go", Summary: "reports counts"},
}

func item(id string, ifaces []string, deps ...string) planner.SubWorkItem {
	// JSON arrays, never null: the schema requires them.
	ifaces = append([]string{}, ifaces...)
	deps = append([]string{}, deps...)
	return planner.SubWorkItem{ID: id, Title: "Item " + id, Description: "Do " + id, Files: []string{id + ".go"},
		Symbols: []string{}, Interfaces: ifaces, Tests: "unit tests", DependsOn: deps}
}

func design(path, content string) Interfaces {
	return Interfaces{
		Files:      []InterfaceFile{{Path: path, Content: content}},
		Interfaces: []pipeline.InterfaceDecl{{ID: "IF-1", Name: "Hourly", File: path, Summary: "hourly counter"}},
	}
}

const goodInterface = "package counter\n\n// Hourly counts widgets per hour.\ntype Hourly interface {\n\tAdd(n int)\n}\n"
