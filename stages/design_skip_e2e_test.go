//go:build e2e

package stages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/internal/webhook"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/codegen"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// Issue 29's budgets for a one-sub-work-item bug fix, intake to
// integration with the labels `cogworks init` created: at most 60 GitHub
// requests and 25 writes (the secondary limit allows 500 content-creating
// requests an hour per identity).
const (
	bugFixRequestBudget = 60
	bugFixWriteBudget   = 25
)

// issueWrite matches a write on an issue (labels, comments, the issue
// itself) that GitHub echoes as an issues or issue_comment event.
var issueWrite = regexp.MustCompile(`/issues/(\d+)(?:/labels|/comments)?$`)

// namesJSON is labels as a payload's [{"name": …}] list.
func namesJSON(t *testing.T, labels []string) string {
	t.Helper()
	out := make([]map[string]string, len(labels))
	for i, l := range labels {
		out[i] = map[string]string{"name": l}
	}
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return string(data)
}

// TestBugFixSkipsDesignEndToEnd: a low-complexity bug fix runs intake →
// planning → code generation → scenario validation → review →
// integration on the simulator with the scripted LLM and the real Go
// toolchain, with no specification or interface PR; planning and review
// work from the issue text, and the skip is in the snapshot and the
// status comment. It also holds the fix to issue 29's request and write
// budgets, and checks that the events its own writes cause are idle.
func TestBugFixSkipsDesignEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the Go toolchain through the reference domain service")
	}
	ctx := context.Background()
	env := testenv.New(t)
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	repo := testenv.Repo.String()
	// The telemetry sink exists and accepts empty frames: the bug.
	files := maps.Clone(e2eRepoFiles)
	files["telemetry/api.go"] = e2eInterface
	files["telemetry/publish.go"] = e2eCode(2)
	env.Sim.SeedFiles(repo, "main", files)
	for _, name := range pipeline.RepositoryLabels() { // what `cogworks init` created once
		color, desc, _ := pipeline.LabelSpec(name)
		env.Sim.SeedLabel(repo, name, color, desc)
	}
	ws := t.TempDir()
	testkit.WriteTree(t, ws, files)

	reg, err := xval.LoadRegistry(filepath.Join(ws, ".cogworks", "interfaces"))
	require.NoError(t, err)
	scenarios, err := scenario.LoadScenarios(ctx, os.DirFS(ws), ".cogworks/scenarios")
	require.NoError(t, err)
	dom, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix,
		Endpoint: goservicetest.Start(t, goservice.Options{})})
	require.NoError(t, err)
	t.Cleanup(dom.Close)

	script := llm.NewScripted()
	add := func(key string, v any) { require.NoError(t, script.AddJSON(key, v)) }
	add(prompts.Classify, classify.Classification{
		Type: classify.TypeBugFix, AffectedModules: []string{"telemetry"},
		EstimatedScope: classify.Scope{Files: 1, Interfaces: 0, Complexity: "low"},
		Rationale:      "Publish must refuse empty frames and bound the sink.",
	})
	add(prompts.Planning, planner.Plan{SubWorkItems: []planner.SubWorkItem{{
		ID: "fix", Title: "Refuse empty frames", Description: "Publish returns ErrEmptyFrame for an empty frame and ErrFull past MaxFrames.",
		Files: []string{"telemetry/publish.go", "telemetry/publish_test.go"}, Interfaces: []string{},
		Tests: "Publishing keeps the frame.", DependsOn: []string{}, Symbols: []string{},
	}}})
	add("code_generation", codegen.CodeOutput{Files: []codegen.CodeFile{
		{Path: "telemetry/publish_test.go", Content: e2eCodeTest},
	}, Edits: []codegen.CodeEdit{{Path: "telemetry/publish.go",
		Old: strings.TrimPrefix(e2eCode(2), e2eCodeHeader), New: strings.TrimPrefix(e2eCode(4), e2eCodeHeader)}}, Deletes: []string{}, Renames: []codegen.CodeRename{}, Notes: "fix"})
	for _, pass := range []string{"review_quality", "review_architecture", "review_security"} {
		add(pass, reviewstage.ReviewOutput{Passed: true, Findings: reviewstage.EmptyIfNil[review.Finding](nil)})
	}

	deps := stages.Deps{Scenarios: scenarios, GitHub: env.Client, Deps: stagekit.Deps{
		LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws,
		Registry: reg, Services: []xval.ServiceInfo{{Name: "go", Domain: goservice.Domain}},
		Clock: env.Clock.Now,
	}}
	cfg := config.Default() // the architecture gate stays human-gated: a skipped stage's gate does not apply
	cfg.Scenarios.Trajectories = 1
	ed := engine.Deps{GitHub: env.Client, Executors: stages.Executors(deps), Config: cfg, RunID: "e2e-bugfix",
		BotLogin: testenv.Bot, Clock: env.Clock.Now}
	issueBody := "Publish accepts an empty frame; it must return ErrEmptyFrame."
	parent := env.Sim.SeedIssue(repo, "alice", "Empty telemetry frames are accepted", issueBody, pipeline.LabelRun)

	results, err := engine.Run(ctx, ed, engine.Ref{Repo: testenv.Repo, Issue: parent}, 20)
	require.NoError(t, err, "results: %+v", results)
	require.Equal(t, engine.OutcomeComplete, results[len(results)-1].Outcome, "results: %+v", results)
	var ran []string
	for _, r := range results {
		ran = append(ran, r.Stage)
	}
	assert.Equal(t, []string{"intake", "planning", "code-generation", "scenario-validation", "review", "integration"}, ran)
	assert.Empty(t, script.Remaining(), "every scripted answer was used")
	requests, writes := len(env.Sim.Requests()), 0
	var echoes []string // the issue events CogWorks's own writes cause
	for _, r := range env.Sim.Requests() {
		if r.Method == "GET" {
			continue
		}
		writes++
		if m := issueWrite.FindStringSubmatch(r.Path); m != nil {
			echoes = append(echoes, m[1])
		}
	}
	t.Logf("one-sub-work-item bug fix: %d GitHub requests, %d writes, %d steps in 1 invocation", requests, writes, len(results))
	assert.LessOrEqual(t, requests, bugFixRequestBudget, "issue 29's budget for a one-sub-work-item bug fix")
	assert.LessOrEqual(t, writes, bugFixWriteBudget, "issue 29's write budget: the secondary limit allows 500 writes an hour")
	// Under an App identity every one of those writes comes back as an
	// event; each must be decided from its payload, at no request.
	require.NotEmpty(t, echoes)
	for _, n := range echoes {
		num, err := strconv.Atoi(n)
		require.NoError(t, err)
		is, ok := env.Sim.Issue(repo, num)
		require.True(t, ok)
		payload := fmt.Sprintf(`{"action":"labeled","issue":{"number":%d,"labels":%s},"sender":{"login":%q,"type":"Bot"},"repository":{"full_name":%q}}`,
			num, namesJSON(t, is.Labels), testenv.Bot, repo)
		p, err := webhook.Parse([]byte(payload))
		require.NoError(t, err)
		assert.NotEmpty(t, p.Untriggered(), "the echo of a write on #%d costs an invocation", num)
	}

	for _, pr := range env.Sim.Pulls(repo) {
		assert.NotEqual(t, fmt.Sprintf("cogworks/%d/spec", parent), pr.Head, "no specification PR")
		assert.NotEqual(t, fmt.Sprintf("cogworks/%d/interfaces", parent), pr.Head, "no interface PR")
	}
	for _, r := range script.Requests() {
		if r.Template == prompts.Planning {
			assert.True(t, stagetest.ContainsText(r, issueBody), "planning works from the issue text")
		}
	}
	snap := e2eSnapshot(t, env, parent)
	assert.Equal(t, pipeline.DesignStages(), snap.Skipped)
	assert.Zero(t, snap.Artifacts.SpecPR)
	assert.Zero(t, snap.Artifacts.InterfacePR)
	var status string
	for _, c := range env.Sim.Comments(repo, parent) {
		if _, ok, _ := pipeline.ParseSnapshot(c.Body); ok {
			status = c.Body
		}
	}
	assert.Contains(t, status, "**Path:** skips `architecture`, `interface-design`")
	assert.True(t, strings.Contains(status, "stateDiagram-v2") && !strings.Contains(status, "gate_architecture"), "the diagram is the variant's")
	assert.Equal(t, e2eCode(4), env.Sim.BranchFiles(repo, fmt.Sprintf("cogworks/%d/swi-1", parent))["telemetry/publish.go"])
}
