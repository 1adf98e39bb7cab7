package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/xval"
)

// shipRegistryTOML is the contract the review tests' code is bound to.
const shipRegistryTOML = `id = "SWD-IF-TEL-01"
version = "1.0.0"
type = "signal"
title = "Telemetry publishing"
owner = "firmware"
participants = ["software"]

[parameters.publish_period_ms]
kind = "tolerance"
nominal = 100
min = 50
max = 200
unit = "ms"
`

const (
	shipSWIID    = "telemetry-publisher"
	shipCodePath = "telemetry/publish.go"
	shipCode     = `package telemetry

// PublishPeriodMS is how often frames are published.
//
//cogworks:contract SWD-IF-TEL-01 publish_period_ms
const PublishPeriodMS = 100

// Publish sends one frame.
func Publish(frame []byte) error {
	_ = frame
	return nil
}
`
)

// shipDomain is a fake domain service: ExtractInterfaces returns fixed
// values and records how many LLM requests had been made when it ran.
type shipDomain struct {
	Domain // unused methods panic through the nil embedded interface
	mu     sync.Mutex
	values []domain.ContractValue
	script *llm.Scripted
	// llmRequestsAtExtract records len(script.Requests()) per call.
	llmRequestsAtExtract []int
	artifacts            [][]domain.Artifact
}

func (f *shipDomain) ExtractInterfaces(_ context.Context, req domain.Request) (domain.ExtractResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.llmRequestsAtExtract = append(f.llmRequestsAtExtract, len(f.script.Requests()))
	f.artifacts = append(f.artifacts, req.Artifacts)
	return domain.ExtractResult{Values: f.values}, nil
}

// shipFixture is a work item at the review stage of one SWI, on the
// simulator, with a scripted LLM and a fake domain service.
type shipFixture struct {
	env    *testenv.Env
	script *llm.Scripted
	dom    *shipDomain
	deps   Deps
	cfg    config.Config
	snap   *pipeline.Snapshot
	parent int
	swi    int
}

func newShipFixture(t *testing.T, safety bool) *shipFixture {
	t.Helper()
	return newShipFixtureOn(t, safety, nil)
}

// newShipFixtureOn is newShipFixture with base committed on the default
// branch before any branch of the pipeline is cut from it.
func newShipFixtureOn(t *testing.T, safety bool, base map[string]string) *shipFixture {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	if base != nil {
		env.Sim.SeedFiles(repo, "main", base)
	}
	parent := env.Sim.SeedIssue(repo, "alice", "Publish telemetry frames", "Publish a frame every 100 ms.", pipeline.LabelRun)
	swi := env.Sim.SeedIssue(repo, testenv.Bot, "Telemetry publisher", "Implement telemetry.Publish.",
		"cogworks:sub-work-item", "cogworks:status:in-progress")
	env.Sim.SeedFiles(repo, specBranch(parent), map[string]string{specPath(parent): "# Specification\n\nPublish telemetry frames.\n"})
	env.Sim.SeedFiles(repo, fmt.Sprintf("cogworks/%d/interfaces", parent), map[string]string{"telemetry/api.go": "package telemetry\n"})
	env.Sim.SeedFiles(repo, fmt.Sprintf("cogworks/%d/swi-1", parent), map[string]string{shipCodePath: shipCode})

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tel.toml"), []byte(shipRegistryTOML), 0o600))
	reg, err := xval.LoadRegistry(dir)
	require.NoError(t, err)

	script := llm.NewScripted()
	dom := &shipDomain{script: script, values: []domain.ContractValue{{
		Interface: "SWD-IF-TEL-01", Parameter: "publish_period_ms", Value: 100.0,
		Artifact: shipCodePath, Location: domain.Location{File: shipCodePath, Line: 6},
	}}}
	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageReview
	snap.CurrentSWI = shipSWIID
	snap.Artifacts = pipeline.Artifacts{
		SpecBranch: specBranch(parent), SpecPR: 901,
		InterfaceBranch: fmt.Sprintf("cogworks/%d/interfaces", parent), InterfacePR: 902,
	}
	snap.SubWorkItems = []pipeline.SWI{{SubWorkItem: planner.SubWorkItem{ID: shipSWIID}, Issue: swi, Order: 1, Status: string(pipeline.SWIInProgress),
		Committed: []string{shipCodePath}}}
	if safety {
		snap.Classification = safetyClassification()
	}
	cfg := config.Default()
	return &shipFixture{
		env: env, script: script, dom: dom, cfg: cfg, snap: &snap, parent: parent, swi: swi,
		deps: Deps{
			GitHub: env.Client, LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom,
			Workspace: t.TempDir(), Registry: reg, Clock: env.Clock.Now,
		},
	}
}

// scriptReviews queues one answer per LLM review pass.
func (f *shipFixture) scriptReviews(t *testing.T, quality, architecture, security []review.Finding) {
	t.Helper()
	for tmpl, fs := range map[string][]review.Finding{"review_quality": quality, "review_architecture": architecture, "review_security": security} {
		passed := true
		for _, x := range fs {
			if x.Severity == review.SeverityBlocking {
				passed = false
			}
		}
		require.NoError(t, f.script.AddJSON(tmpl, reviewOutput{Passed: passed, Findings: emptyIfNil(fs)}))
	}
}

// run executes stage's executor on the fixture's snapshot.
func (f *shipFixture) run(t *testing.T, stage pipeline.Stage) (engine.StageResult, error) {
	t.Helper()
	ex := Executors(f.deps)[stage]
	require.NotNil(t, ex, "no executor for %s", stage)
	return ex.Execute(context.Background(), engine.StageInput{
		Repo: testenv.Repo, Issue: github.Issue{Number: f.parent}, Stage: stage,
		Snapshot: f.snap, Config: f.cfg, RunID: "run-ship", BotLogin: testenv.Bot,
	})
}

// comment returns the body of the parent's comment with key, "" if none.
func (f *shipFixture) comment(key string) string {
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.parent) {
		if _, ok := idem.FindComment([]github.Comment{{Body: c.Body, User: c.Author}}, testenv.Bot, key); ok {
			return c.Body
		}
	}
	return ""
}

// writeRequests lists the non-GET requests the simulator saw, as
// "METHOD path".
func writeRequests(f *shipFixture) []string {
	var out []string
	for _, r := range f.env.Sim.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func hasMergeOrApproval(t *testing.T, f *shipFixture) {
	t.Helper()
	for _, r := range f.env.Sim.Requests() {
		require.False(t, r.Method == "PUT" && strings.HasSuffix(r.Path, "/merge"), "merge request sent: %s", r.Path)
	}
	for _, pr := range f.env.Sim.Pulls(testenv.Repo.String()) {
		require.False(t, pr.Merged, "PR #%d merged", pr.Number)
		for _, rv := range pr.Reviews {
			require.NotEqual(t, "APPROVED", rv.State, "PR #%d approved", pr.Number)
			require.NotEqual(t, "CHANGES_REQUESTED", rv.State, "PR #%d changes requested", pr.Number)
		}
	}
}

func safetyClassification() *classify.Classification {
	return &classify.Classification{
		Type: classify.Type("feature"), AffectedModules: []string{"telemetry"},
		EstimatedScope:  classify.Scope{Files: 1, Interfaces: 1, Complexity: "low"},
		SafetyAffecting: true, Rationale: "telemetry feeds the brake controller",
	}
}

func warningFinding() review.Finding {
	return review.Finding{File: shipCodePath, Line: 9, Severity: review.SeverityWarning, Criterion: "naming",
		Explanation: "parameter frame is unused"}
}

func infoFinding() review.Finding {
	return review.Finding{File: shipCodePath, Line: 0, Severity: review.SeverityInformational, Criterion: "docs",
		Explanation: "consider a package example"}
}

// reviewThenIntegrate runs review (which must proceed) then integration.
func reviewThenIntegrate(t *testing.T, f *shipFixture) engine.StageResult {
	t.Helper()
	res, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	require.Equal(t, pipeline.EventDone, res.Event, "review must proceed")
	res, err = f.run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	return res
}

func onlyPull(t *testing.T, f *shipFixture) githubsim.PullRequest {
	t.Helper()
	pulls := f.env.Sim.Pulls(testenv.Repo.String())
	require.Len(t, pulls, 1)
	return pulls[0]
}

// containsText reports whether the request's system prompt or any message
// contains s.
func containsText(r llm.Request, s string) bool {
	if strings.Contains(r.System, s) {
		return true
	}
	for _, m := range r.Messages {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}
