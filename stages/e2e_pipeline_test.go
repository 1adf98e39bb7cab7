//go:build e2e

package stages_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/interfaces"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The sample repository of the end-to-end test: a Go module with an empty
// telemetry package, one registry contract and one held-out scenario.
var e2eRepoFiles = map[string]string{
	"README.md":                     "# widgets\n",
	"go.mod":                        "module example.com/widgets\n\ngo 1.22\n",
	"telemetry/doc.go":              "// Package telemetry publishes telemetry frames.\npackage telemetry\n",
	".cogworks/interfaces/tel.toml": stagetest.ShipRegistryTOML,
	".cogworks/scenarios/publish.toml": `id = "SCN-TEL-PUBLISH"
description = "Empty frames are refused and valid frames are kept"
covers = ["IF-TEL-PUBLISHER"]
trajectories = 1

[run]
overlay = [{ from = ".cogworks/scenarios/publish_test.go", to = "telemetry/zz_scenario_test.go" }]
packages = ["./telemetry"]
filter = "TestScenarioPublish"

[[acceptance]]
check = "exit_code"
equals = 0

[[failure]]
check = "content_matches"
pattern = "(?i)panic|DATA RACE"
`,
	".cogworks/scenarios/publish_test.go": `package telemetry

import "testing"

func TestScenarioPublish(t *testing.T) {
	t.Parallel()
	s := NewSink()
	if err := s.Publish(nil); err == nil {
		t.Fatal("an empty frame was accepted")
	}
	if err := s.Publish([]byte("frame")); err != nil {
		t.Fatalf("a valid frame was refused: %v", err)
	}
	if PublishPeriodMS < 50 || PublishPeriodMS > 200 {
		t.Fatalf("publish period %d ms is outside the contract", PublishPeriodMS)
	}
}
`,
}

const e2eInterface = `package telemetry

// Publisher publishes telemetry frames.
type Publisher interface {
	Publish(frame []byte) error
}
`

const e2eCodeHeader = `package telemetry

import "errors"

// PublishPeriodMS is how often frames are published, in milliseconds.
//
//cogworks:contract SWD-IF-TEL-01 publish_period_ms
const PublishPeriodMS = 100

// ErrEmptyFrame is returned for a frame without bytes.
var ErrEmptyFrame = errors.New("telemetry: empty frame")

// ErrFull is returned when the sink holds MaxFrames frames.
var ErrFull = errors.New("telemetry: sink is full")

// MaxFrames bounds how many frames a Sink keeps.
const MaxFrames = 1024

var _ Publisher = (*Sink)(nil)

// Sink keeps published frames in memory.
type Sink struct {
	frames [][]byte
}

// NewSink returns an empty sink.
func NewSink() *Sink { return &Sink{} }

// Frames returns the published frames.
func (s *Sink) Frames() [][]byte { return s.frames }
`

// e2eCode returns the generated publish.go of each code generation
// attempt: 1 does not compile, 2 accepts empty frames (the scenario
// fails), 3 grows without bound (a blocking review finding), 4 is final.
func e2eCode(version int) string {
	publish := map[int]string{
		1: "\n// Publish stores a copy of frame.\nfunc (s *Sink) Publish(frame []byte) error {\n\ts.frames = append(s.frames, append([]byte(nil), frame...))\n\treturn errUndefined\n}\n",
		2: "\n// Publish stores a copy of frame.\nfunc (s *Sink) Publish(frame []byte) error {\n\ts.frames = append(s.frames, append([]byte(nil), frame...))\n\treturn nil\n}\n",
		3: "\n// Publish stores a copy of frame.\nfunc (s *Sink) Publish(frame []byte) error {\n\tif len(frame) == 0 {\n\t\treturn ErrEmptyFrame\n\t}\n\ts.frames = append(s.frames, append([]byte(nil), frame...))\n\treturn nil\n}\n",
		4: "\n// Publish stores a copy of frame.\nfunc (s *Sink) Publish(frame []byte) error {\n\tif len(frame) == 0 {\n\t\treturn ErrEmptyFrame\n\t}\n\tif len(s.frames) >= MaxFrames {\n\t\treturn ErrFull\n\t}\n\ts.frames = append(s.frames, append([]byte(nil), frame...))\n\treturn nil\n}\n",
	}[version]
	return e2eCodeHeader + publish
}

const e2eCodeTest = `package telemetry

import "testing"

func TestSinkKeepsFrames(t *testing.T) {
	t.Parallel()
	s := NewSink()
	if err := s.Publish([]byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if got := len(s.Frames()); got != 1 {
		t.Fatalf("frames = %d, want 1", got)
	}
}
`

// e2eFramesLine is the line of the Frames method in every version.
func e2eFramesLine(t *testing.T, code string) int {
	t.Helper()
	for i, l := range strings.Split(code, "\n") {
		if strings.HasPrefix(l, "func (s *Sink) Frames()") {
			return i + 1
		}
	}
	t.Fatal("Frames not found")
	return 0
}

func e2eScript(t *testing.T, script *llm.Scripted) {
	t.Helper()
	add := func(key string, v any) { require.NoError(t, script.AddJSON(key, v)) }
	add(prompts.Classify, classify.Classification{
		Type: "feature", AffectedModules: []string{"telemetry"},
		EstimatedScope: classify.Scope{Files: 2, Interfaces: 1, Complexity: "low"},
		Rationale:      "A new publisher in the telemetry package.",
	})
	add(prompts.Architecture, architecture.Specification{
		Summary:           "Add an in-memory telemetry sink that publishes frames every 100 ms.",
		AffectedModules:   []architecture.SpecModule{{Name: "telemetry"}},
		DesignDecisions:   []architecture.SpecDecision{{Decision: "Keep frames in memory", Rationale: "No transport exists yet."}},
		DependencyChanges: []architecture.SpecDependency{}, Risks: []architecture.SpecRisk{{Risk: "memory growth", Severity: "medium", Mitigation: "bound the sink"}},
		RequiredADRs:   []string{},
		ProposedValues: []architecture.SpecProposedValue{{Interface: "SWD-IF-TEL-01", Parameter: "publish_period_ms", Value: 100}},
	})
	add(prompts.InterfaceDesign, interfaces.Interfaces{
		Files:      []interfaces.InterfaceFile{{Path: "telemetry/api.go", Content: e2eInterface}},
		Interfaces: []pipeline.InterfaceDecl{{ID: "IF-TEL-PUBLISHER", Name: "Publisher", File: "telemetry/api.go", Summary: "publishes frames"}},
	})
	add(prompts.Planning, planner.Plan{SubWorkItems: []planner.SubWorkItem{{
		ID: "sink", Title: "In-memory telemetry sink", Description: "Implement Publisher with an in-memory Sink.",
		Files: []string{"telemetry/publish.go", "telemetry/publish_test.go"}, Interfaces: []string{"IF-TEL-PUBLISHER"},
		Tests: "Publishing keeps the frame.", DependsOn: []string{}, Symbols: []string{},
	}}})
	for v := 1; v <= 4; v++ {
		add("code_generation", codegen.CodeOutput{Files: []codegen.CodeFile{
			{Path: "telemetry/publish.go", Content: e2eCode(v)},
			{Path: "telemetry/publish_test.go", Content: e2eCodeTest},
		}, Edits: []codegen.CodeEdit{}, Deletes: []string{}, Renames: []codegen.CodeRename{}, Notes: fmt.Sprintf("version %d", v)})
	}
	pass := func(fs ...review.Finding) reviewstage.ReviewOutput {
		return reviewstage.ReviewOutput{Passed: !slices.ContainsFunc(fs, func(f review.Finding) bool { return f.Severity == domain.SeverityBlocking }), Findings: reviewstage.EmptyIfNil(fs)}
	}
	// First review (version 3): a blocking security finding.
	add("review_quality", pass())
	add("review_architecture", pass())
	add("review_security", pass(review.Finding{File: "telemetry/publish.go", Line: 32, Severity: domain.SeverityBlocking,
		Criterion: "resource exhaustion", Explanation: "the sink grows without bound; cap it"}))
	// Second review (version 4): one warning, which becomes an inline comment.
	add("review_quality", pass(review.Finding{File: "telemetry/publish.go", Line: e2eFramesLine(t, e2eCode(4)), Severity: domain.SeverityWarning,
		Criterion: "encapsulation", Explanation: "Frames exposes the internal slice; return a copy"}))
	add("review_architecture", pass())
	add("review_security", pass())
}

func e2eWrites(env *testenv.Env) []string {
	var out []string
	for _, r := range env.Sim.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func TestPipelineEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the Go toolchain through the reference domain service")
	}
	ctx := context.Background()
	env := testenv.New(t)
	// The test clock stands still, so the whole pipeline's writes land in
	// one simulated minute; on GitHub LLM and toolchain time spread them.
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	repo := testenv.Repo.String()
	env.Sim.SeedFiles(repo, "main", e2eRepoFiles)
	ws := t.TempDir()
	testkit.WriteTree(t, ws, e2eRepoFiles)

	reg, err := xval.LoadRegistry(filepath.Join(ws, ".cogworks", "interfaces"))
	require.NoError(t, err)
	scenarios, err := scenario.LoadScenarios(ctx, os.DirFS(ws), ".cogworks/scenarios")
	require.NoError(t, err)
	require.Len(t, scenarios, 1)
	dom, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix,
		Endpoint: goservicetest.Start(t, goservice.Options{})})
	require.NoError(t, err)
	t.Cleanup(dom.Close)

	script := llm.NewScripted()
	e2eScript(t, script)
	warning := `domain service "pcb" (domain electrical) is unavailable: cross-domain validation for electrical was skipped`
	deps := stages.Deps{Scenarios: scenarios, GitHub: env.Client, Deps: stagekit.Deps{
		LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws,
		Registry: reg, Services: []xval.ServiceInfo{{Name: "go", Domain: goservice.Domain}}, Warnings: []string{warning},
		Clock: env.Clock.Now,
	}}
	cfg := config.Default()
	cfg.Gates["architecture"] = config.HumanGated
	// One trajectory per validation: the scenario's verdict is the same on
	// every run of this code, and scoring over trajectories has its own
	// tests (ASSERT-SCEN-004, -010); each extra one is another go test.
	cfg.Scenarios.Trajectories = 1
	cfg.Budgets.SubWorkItemMaxRetries = 3
	ed := engine.Deps{GitHub: env.Client, Executors: stages.Executors(deps), Config: cfg, RunID: "e2e",
		BotLogin: testenv.Bot, Clock: env.Clock.Now}
	parent := env.Sim.SeedIssue(repo, "alice", "Publish telemetry frames", "Publish telemetry frames every 100 ms into an in-memory sink.", pipeline.LabelRun)
	ref := engine.Ref{Repo: testenv.Repo, Issue: parent}

	// cogworks:run → intake → architecture, which waits for a human.
	results, err := engine.Run(ctx, ed, ref, 10)
	require.NoError(t, err)
	last := results[len(results)-1]
	require.Equal(t, engine.OutcomeWaiting, last.Outcome, "results: %+v", results)
	labels := env.Sim.Labels(repo, parent)
	assert.Contains(t, labels, "cogworks:stage:architecture")
	assert.Contains(t, labels, "cogworks:awaiting-review")

	// alice approves; the pipeline runs to the end.
	require.True(t, env.Sim.LabelIssue(repo, parent, "alice", pipeline.LabelApprove))
	results, err = engine.Run(ctx, ed, ref, 40)
	require.NoError(t, err, "results: %+v", results)
	require.Equal(t, engine.OutcomeComplete, results[len(results)-1].Outcome, "results: %+v", results)
	var ran []string
	for _, r := range results {
		ran = append(ran, r.Stage)
	}
	assert.Equal(t, []string{
		"interface-design", "planning",
		"code-generation", "scenario-validation", // attempt 1 fails to compile, 2 is committed; its scenario fails
		"code-generation", "scenario-validation", "review", // version 3: blocking review finding
		"code-generation", "scenario-validation", "review", // version 4
		"integration",
	}, ran)
	assert.Empty(t, script.Remaining(), "every scripted answer was used")

	// The compile error of attempt 1 was fed back to attempt 2.
	var codegen []llm.Request
	for _, r := range script.Requests() {
		if r.Template == "code_generation" {
			codegen = append(codegen, r)
		}
	}
	require.Len(t, codegen, 4)
	assert.True(t, stagetest.ContainsText(codegen[1], "undefined: errUndefined"), "attempt 2 sees the compile diagnostics")
	assert.True(t, stagetest.ContainsText(codegen[2], "SCN-TEL-PUBLISH"), "attempt 3 sees the scenario failure")
	for i, r := range codegen {
		assert.False(t, stagetest.ContainsText(r, "func TestScenarioPublish("), "attempt %d saw the held-out scenario's code", i+1)
	}
	assert.True(t, stagetest.ContainsText(codegen[3], "the sink grows without bound"), "attempt 4 sees the blocking review finding")

	// Parent: complete, with a cost report.
	labels = env.Sim.Labels(repo, parent)
	assert.Contains(t, labels, "cogworks:stage:complete")
	assert.NotContains(t, labels, "cogworks:processing")
	var cost string
	for _, c := range env.Sim.Comments(repo, parent) {
		if strings.Contains(c.Body, audit.Marker(audit.Key(fmt.Sprint(parent), "cost"))) {
			cost = c.Body
		}
	}
	assert.Contains(t, cost, "stage `code-generation`")
	assert.Contains(t, cost, "stage `review`")

	// The SWI's PR is open, references everything, carries the warning
	// and the inline review comment; nothing was merged or approved.
	var swiPR *struct{ n int }
	for _, pr := range env.Sim.Pulls(repo) {
		assert.False(t, pr.Merged)
		for _, rv := range pr.Reviews {
			assert.Equal(t, "COMMENTED", rv.State)
		}
		if pr.Head != fmt.Sprintf("cogworks/%d/swi-1", parent) {
			continue
		}
		swiPR = &struct{ n int }{pr.Number}
		assert.Equal(t, "open", pr.State)
		assert.Equal(t, fmt.Sprintf("cogworks/%d/interfaces", parent), pr.Base)
		assert.Contains(t, pr.Body, warning)
		require.Len(t, pr.Reviews, 1)
		require.Len(t, pr.Reviews[0].Comments, 1)
		assert.Equal(t, "telemetry/publish.go", pr.Reviews[0].Comments[0].Path)
		assert.Equal(t, e2eFramesLine(t, e2eCode(4)), pr.Reviews[0].Comments[0].Line)
		assert.Contains(t, pr.Reviews[0].Comments[0].Body, "Frames exposes the internal slice")
	}
	require.NotNil(t, swiPR, "no PR for the SWI branch")
	for _, r := range env.Sim.Requests() {
		assert.False(t, r.Method == "PUT" && strings.HasSuffix(r.Path, "/merge"), "merge request %s", r.Path)
	}

	// The final branch builds and passes go test through the domain service.
	var artifacts []domain.Artifact
	for p, c := range env.Sim.BranchFiles(repo, fmt.Sprintf("cogworks/%d/swi-1", parent)) {
		if strings.HasSuffix(p, ".go") && !strings.HasPrefix(p, ".cogworks/") {
			artifacts = append(artifacts, domain.Artifact{Path: p, Content: c})
		}
	}
	assert.Contains(t, artifacts, domain.Artifact{Path: "telemetry/publish.go", Content: e2eCode(4)})
	req := domain.Request{WorkItem: fmt.Sprint(parent), Repository: domain.Repository{Path: ws}, Artifacts: artifacts}
	diags, err := dom.Validate(ctx, req)
	require.NoError(t, err)
	for _, d := range diags.Diagnostics {
		assert.NotEqual(t, domain.SeverityBlocking, d.EffectiveSeverity(), "diagnostic %+v", d)
	}
	sim, err := dom.Simulate(ctx, req, domain.SimulateParams{Packages: []string{"./..."}})
	require.NoError(t, err)
	assert.True(t, sim.Passed, "go test on the final branch: %s", sim.Output)

	// Re-running changes nothing: the engine finds the pipeline complete,
	// and re-running integration on the final state finds its PR and
	// review.
	env.Sim.ResetRequests()
	results, err = engine.Run(ctx, ed, ref, 5)
	require.NoError(t, err)
	assert.Equal(t, engine.OutcomeComplete, results[len(results)-1].Outcome)
	assert.Empty(t, e2eWrites(env), "re-running the pipeline must not write")
	snap := e2eSnapshot(t, env, parent)
	require.Len(t, snap.SubWorkItems, 1)
	assert.Equal(t, swiPR.n, snap.SubWorkItems[0].PR)
	snap.CurrentSWI = snap.SubWorkItems[0].ID
	_, err = stagetest.Execute(ctx, stages.Executors(deps)[pipeline.StageIntegration], engine.StageInput{
		Repo: testenv.Repo, Issue: github.Issue{Number: parent}, Stage: pipeline.StageIntegration,
		Snapshot: &snap, Config: cfg, RunID: "e2e-rerun", BotLogin: testenv.Bot,
	})
	require.NoError(t, err)
	assert.Empty(t, e2eWrites(env), "re-running integration must not write")
}

// e2eSnapshot parses the state snapshot comment of issue n.
func e2eSnapshot(t *testing.T, env *testenv.Env, n int) pipeline.Snapshot {
	t.Helper()
	for _, c := range env.Sim.Comments(testenv.Repo.String(), n) {
		if s, ok, err := pipeline.ParseSnapshot(c.Body); ok {
			require.NoError(t, err)
			return s
		}
	}
	t.Fatalf("no snapshot on #%d", n)
	return pipeline.Snapshot{}
}
