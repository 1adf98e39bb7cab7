package stages

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// counterInterface is the interface-design output the build tests implement.
const counterInterface = `package widgets

// Counter counts events.
type Counter interface {
	Inc()
	Value() int
}
`

// buildFixture is a work item past planning: a small Go module on the
// simulator's default branch and in a workspace directory, an interface
// branch, SWI issues, a scripted LLM and (optionally) the real reference
// domain service.
type buildFixture struct {
	env    *testenv.Env
	script *llm.Scripted
	deps   Deps
	cfg    config.Config
	snap   *pipeline.Snapshot
	parent int
}

// startGoService starts the reference Go domain service and returns a
// client for it; share one per test function (the toolchain is slow).
// The test skips without the e2e tag: every caller runs the toolchain.
func startGoService(t *testing.T) *domain.Client {
	t.Helper()
	e2e.RequireToolchain(t)
	sock := goservicetest.Start(t, goservice.Options{})
	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// newBuildFixture seeds the module and the given SWIs (plan items in
// order; Order is the index+1). workspaceExtra are files only in the
// workspace (e.g. scenarios).
func newBuildFixture(t *testing.T, dom Domain, items []planner.SubWorkItem, workspaceExtra map[string]string) *buildFixture {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	base := map[string]string{
		"README.md":          "# widgets\n",
		"go.mod":             "module example.com/widgets\n\ngo 1.22\n",
		"widgets/doc.go":     "// Package widgets holds small widgets.\npackage widgets\n",
		"CONTRIBUTING.md":    "Write table-driven tests.\n",
		"other/unrelated.go": "package other\n",
	}
	env.Sim.SeedFiles(repo, "main", base)
	ws := t.TempDir()
	for p, c := range base {
		writeFile(t, ws, p, c)
	}
	for p, c := range workspaceExtra {
		writeFile(t, ws, p, c)
	}
	parent := env.Sim.SeedIssue(repo, "alice", "Add counters", "We need counters.", pipeline.LabelRun)
	ib := "cogworks/" + strconv.Itoa(parent) + "/interfaces"
	env.Sim.SeedFiles(repo, ib, map[string]string{"widgets/counter.go": counterInterface})

	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageCodeGeneration
	snap.Artifacts.InterfaceBranch = ib
	for i, it := range items {
		n := env.Sim.SeedIssue(repo, testenv.Bot, it.Title, it.Description,
			pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending))
		snap.SubWorkItems = append(snap.SubWorkItems, pipeline.SWI{
			SubWorkItem: it, Issue: n, Order: i + 1, Status: string(pipeline.SWIPending),
		})
	}
	snap.Interfaces = []pipeline.InterfaceDecl{{ID: "IF-COUNTER", Name: "Counter", File: "widgets/counter.go", Summary: "counts"}}

	script := llm.NewScripted()
	cfg := config.Default()
	cfg.Budgets.SubWorkItemMaxRetries = 3
	return &buildFixture{
		env: env, script: script, cfg: cfg, snap: &snap, parent: parent,
		deps: Deps{
			GitHub: env.Client, LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom,
			Workspace: ws, Clock: env.Clock.Now,
		},
	}
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// run executes stage's executor on the fixture's snapshot.
func (f *buildFixture) run(t *testing.T, stage pipeline.Stage) (engine.StageResult, error) {
	t.Helper()
	ex := Executors(f.deps)[stage]
	require.NotNil(t, ex, "no executor for %s", stage)
	return ex.Execute(context.Background(), engine.StageInput{
		Repo: testenv.Repo, Issue: github.Issue{Number: f.parent}, Stage: stage,
		Snapshot: f.snap, Config: f.cfg, RunID: "run-build", BotLogin: testenv.Bot,
	})
}

// code queues one code_generation answer.
func (f *buildFixture) code(t *testing.T, files map[string]string) {
	t.Helper()
	out := codeOutput{Notes: "scripted", Edits: []codeEdit{}, Files: []codeFile{}, Deletes: []string{}, Renames: []codeRename{}}
	for p, c := range files {
		out.Files = append(out.Files, codeFile{Path: p, Content: c})
	}
	require.NoError(t, f.script.AddJSON("code_generation", out))
}

// requests returns the user messages of the LLM requests for template.
func (f *buildFixture) requests(template string) []string {
	var out []string
	for _, r := range f.script.Requests() {
		if r.Template != template {
			continue
		}
		var b strings.Builder
		b.WriteString(r.System)
		for _, m := range r.Messages {
			b.WriteString("\n")
			b.WriteString(m.Content)
		}
		out = append(out, b.String())
	}
	return out
}
