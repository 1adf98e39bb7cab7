package stagetest

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

	"github.com/cogworks/cogworks/stages"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// ShipRegistryTOML is the contract the review tests' code is bound to.
const ShipRegistryTOML = `id = "SWD-IF-TEL-01"
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
	ShipSWIID    = "telemetry-publisher"
	ShipCodePath = "telemetry/publish.go"
	ShipCode     = `package telemetry

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
	stagekit.Domain // unused methods panic through the nil embedded interface
	mu              sync.Mutex
	Values          []domain.ContractValue
	Script          *llm.Scripted
	// llmRequestsAtExtract records len(script.Requests()) per call.
	LlmRequestsAtExtract []int
	Artifacts            [][]domain.Artifact
	// ExtractErr, when set, is ExtractInterfaces' answer.
	ExtractErr error
}

func (f *shipDomain) ExtractInterfaces(_ context.Context, req domain.Request) (domain.ExtractResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.LlmRequestsAtExtract = append(f.LlmRequestsAtExtract, len(f.Script.Requests()))
	f.Artifacts = append(f.Artifacts, req.Artifacts)
	if f.ExtractErr != nil {
		return domain.ExtractResult{}, f.ExtractErr
	}
	return domain.ExtractResult{Values: f.Values}, nil
}

// ShipFixture is a work item at the review stage of one SWI, on the
// simulator, with a scripted LLM and a fake domain service.
type ShipFixture struct {
	Env    *testenv.Env
	Script *llm.Scripted
	Dom    *shipDomain
	Deps   stages.Deps
	Cfg    config.Config
	Snap   *pipeline.Snapshot
	Parent int
	SWI    int
}

// NewShipFixture is NewShipFixtureOn over the default base files.
func NewShipFixture(t *testing.T, safety bool) *ShipFixture {
	t.Helper()
	return NewShipFixtureOn(t, safety, nil)
}

// NewShipFixtureOn is NewShipFixture with base committed on the default
// branch before any branch of the pipeline is cut from it.
func NewShipFixtureOn(t *testing.T, safety bool, base map[string]string) *ShipFixture {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	if base != nil {
		env.Sim.SeedFiles(repo, "main", base)
	}
	parent := env.Sim.SeedIssue(repo, "alice", "Publish telemetry frames", "Publish a frame every 100 ms.", pipeline.LabelRun)
	swi := env.Sim.SeedIssue(repo, testenv.Bot, "Telemetry publisher", "Implement telemetry.Publish.",
		"cogworks:sub-work-item", "cogworks:status:in-progress")
	env.Sim.SeedFiles(repo, stagekit.SpecBranch(parent), map[string]string{stagekit.SpecPath(parent): "# Specification\n\nPublish telemetry frames.\n"})
	env.Sim.SeedFiles(repo, fmt.Sprintf("cogworks/%d/interfaces", parent), map[string]string{"telemetry/api.go": "package telemetry\n"})
	env.Sim.SeedFiles(repo, fmt.Sprintf("cogworks/%d/swi-1", parent), map[string]string{ShipCodePath: ShipCode})

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tel.toml"), []byte(ShipRegistryTOML), 0o600))
	reg, err := xval.LoadRegistry(dir)
	require.NoError(t, err)

	script := llm.NewScripted()
	dom := &shipDomain{Script: script, Values: []domain.ContractValue{{
		Interface: "SWD-IF-TEL-01", Parameter: "publish_period_ms", Value: 100.0,
		Artifact: ShipCodePath, Location: domain.Location{File: ShipCodePath, Line: 6},
	}}}
	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageReview
	snap.CurrentSWI = ShipSWIID
	snap.Artifacts = pipeline.Artifacts{
		SpecBranch: stagekit.SpecBranch(parent), SpecPR: 901,
		InterfaceBranch: fmt.Sprintf("cogworks/%d/interfaces", parent), InterfacePR: 902,
	}
	snap.SubWorkItems = []pipeline.SWI{{SubWorkItem: planner.SubWorkItem{ID: ShipSWIID}, Issue: swi, Order: 1, Status: pipeline.SWIInProgress,
		Committed: []string{ShipCodePath}}}
	if safety {
		snap.Classification = safetyClassification()
	}
	cfg := config.Default()
	return &ShipFixture{
		Env: env, Script: script, Dom: dom, Cfg: cfg, Snap: &snap, Parent: parent, SWI: swi,
		Deps: stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{
			LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom,
			Workspace: t.TempDir(), Registry: reg, Clock: env.Clock.Now,
		}},
	}
}

// ScriptReviews queues one answer per LLM review pass.
func (f *ShipFixture) ScriptReviews(t *testing.T, quality, architecture, security []review.Finding) {
	t.Helper()
	for tmpl, fs := range map[string][]review.Finding{"review_quality": quality, "review_architecture": architecture, "review_security": security} {
		passed := true
		for _, x := range fs {
			if x.Severity == domain.SeverityBlocking {
				passed = false
			}
		}
		require.NoError(t, f.Script.AddJSON(tmpl, reviewstage.ReviewOutput{Passed: passed, Findings: reviewstage.EmptyIfNil(fs)}))
	}
}

// Run executes stage's executor on the fixture's snapshot.
func (f *ShipFixture) Run(t *testing.T, stage pipeline.Stage) (engine.StageResult, error) {
	t.Helper()
	ex := stages.Executors(f.Deps)[stage]
	require.NotNil(t, ex, "no executor for %s", stage)
	return Execute(context.Background(), ex, engine.StageInput{
		Repo: testenv.Repo, Issue: github.Issue{Number: f.Parent}, Stage: stage,
		Snapshot: f.Snap, Config: f.Cfg, RunID: "run-ship", BotLogin: testenv.Bot,
	})
}

// Comment returns the body of the parent's comment with key, "" if none.
func (f *ShipFixture) Comment(key string) string {
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Parent) {
		if _, ok := idem.FindComment([]github.Comment{{Body: c.Body, User: c.Author}}, testenv.Bot, key); ok {
			return c.Body
		}
	}
	return ""
}

// WriteRequests lists the non-GET requests the simulator saw, as
// "METHOD path".
func WriteRequests(f *ShipFixture) []string {
	var out []string
	for _, r := range f.Env.Sim.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// HasMergeOrApproval fails t if CogWorks merged, approved or requested changes.
func HasMergeOrApproval(t *testing.T, f *ShipFixture) {
	t.Helper()
	for _, r := range f.Env.Sim.Requests() {
		require.False(t, r.Method == "PUT" && strings.HasSuffix(r.Path, "/merge"), "merge request sent: %s", r.Path)
	}
	for _, pr := range f.Env.Sim.Pulls(testenv.Repo.String()) {
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

// WarningFinding is a non-blocking review finding.
func WarningFinding() review.Finding {
	return review.Finding{File: ShipCodePath, Line: 9, Severity: domain.SeverityWarning, Criterion: "naming",
		Explanation: "parameter frame is unused"}
}

// InfoFinding is an informational review finding.
func InfoFinding() review.Finding {
	return review.Finding{File: ShipCodePath, Line: 0, Severity: domain.SeverityInformational, Criterion: "docs",
		Explanation: "consider a package example"}
}

// ReviewThenIntegrate runs review (which must proceed) then integration.
func ReviewThenIntegrate(t *testing.T, f *ShipFixture) engine.StageResult {
	t.Helper()
	res, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	require.Equal(t, pipeline.EventDone, res.Event, "review must proceed")
	res, err = f.Run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	return res
}

// OnlyPull returns the one PR of the fixture's repository.
func OnlyPull(t *testing.T, f *ShipFixture) githubsim.PullRequest {
	t.Helper()
	pulls := f.Env.Sim.Pulls(testenv.Repo.String())
	require.Len(t, pulls, 1)
	return pulls[0]
}

// ContainsText reports whether the request's system prompt or any message
// contains s.
func ContainsText(r llm.Request, s string) bool {
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
