package stagetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// CounterInterface is the interface-design output the build tests implement.
const CounterInterface = `package widgets

// Counter counts events.
type Counter interface {
	Inc()
	Value() int
}
`

// BuildFixture is a work item past planning: a small Go module on the
// simulator's default branch and in a workspace directory, an interface
// branch, SWI issues, a scripted LLM and (optionally) the real reference
// domain service.
type BuildFixture struct {
	Env    *testenv.Env
	Script *llm.Scripted
	Deps   stages.Deps
	Cfg    config.Config
	Snap   *pipeline.Snapshot
	Parent int
}

// StartGoService starts the reference Go domain service and returns a
// client for it; share one per test function (the toolchain is slow).
// The test skips without the e2e tag: every caller runs the toolchain.
func StartGoService(t *testing.T) *domain.Client {
	t.Helper()
	e2e.RequireToolchain(t)
	sock := goservicetest.Start(t, goservice.Options{})
	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// NewBuildFixture seeds the module and the given SWIs (plan items in
// order; Order is the index+1). workspaceExtra are files only in the
// workspace (e.g. scenarios).
func NewBuildFixture(t *testing.T, dom stagekit.Domain, items []planner.SubWorkItem, workspaceExtra map[string]string) *BuildFixture {
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
		WriteFile(t, ws, p, c)
	}
	for p, c := range workspaceExtra {
		WriteFile(t, ws, p, c)
	}
	parent := env.Sim.SeedIssue(repo, "alice", "Add counters", "We need counters.", pipeline.LabelRun)
	ib := "cogworks/" + strconv.Itoa(parent) + "/interfaces"
	env.Sim.SeedFiles(repo, ib, map[string]string{"widgets/counter.go": CounterInterface})

	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageCodeGeneration
	snap.Artifacts.InterfaceBranch = ib
	for i, it := range items {
		n := env.Sim.SeedIssue(repo, testenv.Bot, it.Title, it.Description,
			pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending))
		snap.SubWorkItems = append(snap.SubWorkItems, pipeline.SWI{
			SubWorkItem: it, Issue: n, Order: i + 1, Status: pipeline.SWIPending,
		})
	}
	snap.Interfaces = []pipeline.InterfaceDecl{{ID: "IF-COUNTER", Name: "Counter", File: "widgets/counter.go", Summary: "counts"}}

	script := llm.NewScripted()
	cfg := config.Default()
	cfg.Budgets.SubWorkItemMaxRetries = 3
	return &BuildFixture{
		Env: env, Script: script, Cfg: cfg, Snap: &snap, Parent: parent,
		Deps: stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{
			LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom,
			Workspace: ws, Clock: env.Clock.Now,
		}},
	}
}

// WriteFile writes content to dir/rel, creating its directories.
func WriteFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// Run executes stage's executor on the fixture's snapshot.
func (f *BuildFixture) Run(t *testing.T, stage pipeline.Stage) (engine.StageResult, error) {
	t.Helper()
	ex := stages.Executors(f.Deps)[stage]
	require.NotNil(t, ex, "no executor for %s", stage)
	return Execute(context.Background(), ex, engine.StageInput{
		Repo: testenv.Repo, Issue: github.Issue{Number: f.Parent}, Stage: stage,
		Snapshot: f.Snap, Config: f.Cfg, RunID: "run-build", BotLogin: testenv.Bot,
	})
}

// Code queues one code_generation answer.
func (f *BuildFixture) Code(t *testing.T, files map[string]string) {
	t.Helper()
	out := codegen.CodeOutput{Notes: "scripted", Edits: []codegen.CodeEdit{}, Files: []codegen.CodeFile{}, Deletes: []string{}, Renames: []codegen.CodeRename{}}
	for p, c := range files {
		out.Files = append(out.Files, codegen.CodeFile{Path: p, Content: c})
	}
	require.NoError(t, f.Script.AddJSON("code_generation", out))
}

// Requests returns the user messages of the LLM requests for template.
func (f *BuildFixture) Requests(template string) []string {
	var out []string
	for _, r := range f.Script.Requests() {
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

// MemRepo is a repository held in memory.
type MemRepo map[string]string

// ListFiles lists the repository's paths.
func (m MemRepo) ListFiles(context.Context) ([]string, error) {
	return slices.Sorted(maps.Keys(m)), nil
}

// ReadFile returns the content at p.
func (m MemRepo) ReadFile(_ context.Context, p string) ([]byte, error) {
	c, ok := m[p]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", p, fs.ErrNotExist)
	}
	return []byte(c), nil
}

// SimpleItem is the sub-work item that implements Counter in widgets/simple.go.
func SimpleItem() planner.SubWorkItem {
	return planner.SubWorkItem{
		ID: "counter-simple", Title: "Simple counter", Description: "Implement Counter with an int.",
		Files: []string{SimplePath, SimpleTestPath}, Interfaces: []string{"IF-COUNTER"}, Tests: "TestSimple",
	}
}

// WriteTree writes files (slash paths) under a new temporary directory.
func WriteTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteTree(t, dir, files)
	return dir
}

// StartGoServiceless is a Domain that must not be called.
type StartGoServiceless struct{ stagekit.Domain }

const (
	SimplePath     = "widgets/simple.go"
	SimpleTestPath = "widgets/simple_test.go"
	SimpleCode     = `package widgets

// Simple is a Counter backed by an int.
type Simple struct{ n int }

// NewSimple returns a zeroed counter.
func NewSimple() Counter { return &Simple{} }

// Inc adds one.
func (s *Simple) Inc() { s.n++ }

// Value returns the count.
func (s *Simple) Value() int { return s.n }
`
	SimpleTest = `package widgets

import "testing"

func TestSimple(t *testing.T) {
	t.Parallel()
	c := NewSimple()
	c.Inc()
	c.Inc()
	if got, want := c.Value(), 2; got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}
`
)

// ClampItem is the plan item of the fix: the planner names the files and
// the symbol.
func ClampItem() planner.SubWorkItem {
	return planner.SubWorkItem{
		ID: "clamp", Title: "Return hi above the range", Description: "Clamp returns lo for v > hi; return hi and test it.",
		Files: []string{"big.go", "big_test.go", "legacy.go"}, Symbols: []string{"Clamp"}, Interfaces: []string{},
		Tests: "TestClampAboveRange", DependsOn: []string{},
	}
}

// CountingDomain counts the toolchain runs of the domain service it wraps.
type CountingDomain struct {
	*domain.Client
	Simulations atomic.Int32
}

// Answer queues one code_generation answer and returns its output tokens.
func (f *BuildFixture) Answer(t *testing.T, out codegen.CodeOutput) int {
	t.Helper()
	out.Edits = review.EmptyIfNil(out.Edits)
	out.Files = review.EmptyIfNil(out.Files)
	out.Deletes = review.EmptyIfNil(out.Deletes)
	out.Renames = review.EmptyIfNil(out.Renames)
	require.NoError(t, f.Script.AddJSON("code_generation", out))
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	return llm.EstimateTokens(string(raw))
}

// ClampEdits is a code answer that fixes Clamp by an edit of the rootlib fixture, given the large file's old text.
func ClampEdits(bigOld string) codegen.CodeOutput {
	return codegen.CodeOutput{Notes: "return hi above the range", Edits: []codegen.CodeEdit{
		{Path: "big.go", Old: bigOld, New: ClampFix},
		{Path: "big_test.go", Old: ClampTestAnchor, New: ClampTest},
		{Path: "legacy.go", Old: `const Version = "1.0.0"`, New: `const Version = "1.0.1"`},
	}}
}

// Simulate counts the call and forwards it.
func (c *CountingDomain) Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	c.Simulations.Add(1)
	return c.Client.Simulate(ctx, req, p)
}

// The rootlib fixture (testdata/rootlib) has the shapes that broke code
// generation on real repositories: a root-package library, a 2,000-line
// file holding the bug, a file the current gofmt would rewrite, a lock
// file, a large fixture and packages one to four imports away.
const (
	RootlibIssueTitle = "Clamp returns lo for values above the range"
	RootlibIssueBody  = "Clamp(15, 0, 10) returns 0; it must return 10. ISSUEBODYMARKER"
	ClampBug          = "\tif v > hi {\n\t\treturn lo\n\t}"
	ClampFix          = "\tif v > hi {\n\t\treturn hi\n\t}"
	ClampTestAnchor   = "func TestStep001(t *testing.T) {"
	ClampTest         = "func TestClampAboveRange(t *testing.T) {\n\tif got := Clamp(15, 0, 10); got != 10 {\n\t\tt.Fatalf(\"Clamp(15, 0, 10) = %d, want 10\", got)\n\t}\n}\n\n" + ClampTestAnchor
)

// SeedBranchFrom creates branch from base's head (when missing) and
// commits files on it through the client, as code generation would have.
func (f *BuildFixture) SeedBranchFrom(t *testing.T, branch, base string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	sha, err := f.Env.Client.GetBranchSHA(ctx, testenv.Repo, base)
	require.NoError(t, err)
	if err := f.Env.Client.CreateBranch(ctx, testenv.Repo, branch, sha); err != nil {
		require.ErrorContains(t, err, "exists")
	}
	f.Env.Sim.SeedFiles(testenv.Repo.String(), branch, files)
}

// ScenarioComment is the body of the scenario results comment on the SWI.
func (f *BuildFixture) ScenarioComment(t *testing.T) string {
	t.Helper()
	key := audit.Key(fmt.Sprint(f.Parent), "scenarios", "counter-simple")
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Parent) {
		if strings.Contains(c.Body, audit.Marker(key)) {
			return c.Body
		}
	}
	return ""
}
