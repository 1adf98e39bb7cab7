//go:build e2e

package stages_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
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
	"github.com/cogworks/cogworks/stages/codegen"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// ciCycleRequestBudget bounds the GitHub requests of one CI revision
// step the cron runs (benchmarks/README.md, "CI-feedback revision"): the
// pending check, the lock, the CI reads, the real code-generation attempt
// and review passes, the follow-up commit and the status record (31
// measured: 29 before the pending check read the head's workflow runs,
// where a workflow that could not start shows, and the PR's comments,
// where the bot's escalation or report of the failure would be).
const ciCycleRequestBudget = 32

// ciLintLog is a lint job's log on the fix's head: the doc comment of
// Frames does not say the slice is the sink's own.
const ciLintLog = "2026-11-27T10:00:01.1234567Z ##[group]Run doclint ./...\n" +
	"2026-11-27T10:00:02.1234567Z telemetry/publish.go:28: doc comment of Sink.Frames must say whether the caller may modify the slice\n" +
	"2026-11-27T10:00:02.1234567Z ##[error]Process completed with exit code 1.\n"

// ciFramesDoc is the fix the CI revision's attempt answers with.
const (
	ciFramesDocOld = "// Frames returns the published frames."
	ciFramesDocNew = "// Frames returns the published frames: the sink's own slice, which the caller must not modify."
)

// ciLedger sums a snapshot's ledger.
func ciLedger(s pipeline.Snapshot) (calls, in, out int) {
	for _, u := range s.Ledger.PerStage {
		calls, in, out = calls+u.Calls, in+u.InputTokens, out+u.OutputTokens
	}
	return calls, in, out
}

// TestCICycleFromTheCronEndToEnd: a bug fix runs to its PR on the
// simulator with the scripted LLM and the real Go toolchain; then CI
// fails on the PR's head with no event delivered. `process-all` (the
// cron) finds the failed check run and makes one fix commit through the
// real code-generation attempt and review passes, within
// ciCycleRequestBudget requests; it logs the cycle's requests and
// tokens (the scripted LLM's estimates). Then a run on the fix is
// cancelled (the infrastructure's): the next cron re-runs its failed jobs
// once, spends no cycle and no LLM call, and a third cron re-runs
// nothing.
func TestCICycleFromTheCronEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the Go toolchain through the reference domain service")
	}
	ctx := context.Background()
	env := testenv.New(t)
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	repo := testenv.Repo.String()
	files := maps.Clone(e2eRepoFiles)
	files["telemetry/api.go"] = e2eInterface
	files["telemetry/publish.go"] = e2eCode(2)
	env.Sim.SeedFiles(repo, "main", files)
	for _, name := range pipeline.RepositoryLabels() {
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
	passes := func() {
		for _, pass := range []string{"review_quality", "review_architecture", "review_security"} {
			add(pass, reviewstage.ReviewOutput{Passed: true, Findings: reviewstage.EmptyIfNil[review.Finding](nil)})
		}
	}
	passes()
	// The CI revision: one attempt answering the lint failure, and its
	// review passes. The attempt is validated in the workspace, a
	// checkout of main, so its answer carries the sub-work-item's test.
	add("code_generation", codegen.CodeOutput{Files: []codegen.CodeFile{{Path: "telemetry/publish_test.go", Content: e2eCodeTest}}, Edits: []codegen.CodeEdit{{Path: "telemetry/publish.go",
		Old: ciFramesDocOld, New: ciFramesDocNew}}, Deletes: []string{}, Renames: []codegen.CodeRename{}, Notes: "Documented that Frames returns the sink's own slice."})
	passes()

	deps := stages.Deps{Scenarios: scenarios, GitHub: env.Client, Deps: stagekit.Deps{
		LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws,
		Registry: reg, Services: []xval.ServiceInfo{{Name: "go", Domain: goservice.Domain}},
		Clock: env.Clock.Now,
	}}
	cfg := config.Default()
	cfg.Scenarios.Trajectories = 1
	ed := engine.Deps{GitHub: env.Client, Executors: stages.Executors(deps), Config: cfg, RunID: "e2e-ci",
		BotLogin: testenv.Bot, Clock: env.Clock.Now}
	parent := env.Sim.SeedIssue(repo, "alice", "Empty telemetry frames are accepted", "Publish accepts an empty frame; it must return ErrEmptyFrame.", pipeline.LabelRun)
	results, err := engine.Run(ctx, ed, engine.Ref{Repo: testenv.Repo, Issue: parent}, 20)
	require.NoError(t, err, "results: %+v", results)
	require.Equal(t, engine.OutcomeComplete, results[len(results)-1].Outcome, "results: %+v", results)

	branch := fmt.Sprintf("cogworks/%d/swi-1", parent)
	pr := 0
	for _, p := range env.Sim.Pulls(repo) {
		if p.Head == branch {
			pr = p.Number
		}
	}
	require.NotZero(t, pr)
	head, err := env.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)

	// CI fails on the PR's head; no event reaches CogWorks.
	_, err = env.Sim.SeedWorkflowRun(repo, githubsim.CIRun{Branch: branch, Jobs: []githubsim.CIJob{{Name: "lint", Conclusion: "failure",
		RunnerName: "GitHub Actions 2", Log: ciLintLog,
		Steps:       []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "Run doclint", Conclusion: "failure"}},
		Annotations: []githubsim.CIAnnotation{{Path: "telemetry/publish.go", Line: 28, Level: "failure", Message: "doc comment of Sink.Frames must say whether the caller may modify the slice"}}}}})
	require.NoError(t, err)

	var out, errOut bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" },
		Clock: env.Clock.Now, BotLogin: testenv.Bot}
	f.GitHub = func(context.Context) (factory.Client, error) { return env.Client, nil }
	f.Executors = func(context.Context, factory.Client, github.Repo, string, config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		return stages.Executors(deps), nil, nil
	}
	cron := func(t *testing.T) []engine.Result {
		t.Helper()
		out.Reset()
		if err := cmdtest.Execute(t, f, "process-all", "--repo", repo, "--workspace", t.TempDir(), "--output", "json"); err != nil {
			rq := script.Requests()
			for _, m := range rq[len(rq)-1].Messages {
				t.Log(m.Content)
			}
			t.Fatal(err)
		}
		var rs []engine.Result
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if line == "" {
				continue
			}
			var r engine.Result
			require.NoError(t, json.Unmarshal([]byte(line), &r), line)
			rs = append(rs, r)
		}
		return rs
	}
	ciStep := func(rs []engine.Result, want string) (engine.Result, bool) {
		for _, r := range rs {
			if r.Action == engine.ActionRevise && strings.Contains(r.Reason, want) {
				return r, true
			}
		}
		return engine.Result{}, false
	}

	calls0, in0, out0 := ciLedger(e2eSnapshot(t, env, parent))
	rs := cron(t)
	res, ok := ciStep(rs, "CI revision 1 of PR")
	require.True(t, ok, "the cron's CI step revised: %+v", rs)
	assert.Equal(t, engine.OutcomeAdvanced, res.Outcome)
	calls, in, outTok := ciLedger(e2eSnapshot(t, env, parent))
	t.Logf("one CI revision step from the cron: %d GitHub requests, %d LLM calls, %d input + %d output tokens (the scripted LLM's estimates)",
		res.GitHubRequests, calls-calls0, in-in0, outTok-out0)
	assert.LessOrEqual(t, int(res.GitHubRequests), ciCycleRequestBudget, "the CI revision step's request budget")
	assert.Equal(t, 4, calls-calls0, "one code attempt and three review passes")
	assert.Empty(t, script.Remaining(), "every scripted answer was used")

	fix, err := env.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	commit, err := env.Client.GetCommit(ctx, testenv.Repo, fix.SHA)
	require.NoError(t, err)
	assert.Equal(t, []string{head.SHA}, commit.Parents, "one follow-up commit on the failed head")
	assert.Contains(t, commit.Message, fmt.Sprintf("Cogworks-CI-Revision: pr=%d cycle=1 failed=%s", pr, head.SHA))
	assert.Contains(t, env.Sim.BranchFiles(repo, branch)["telemetry/publish.go"], ciFramesDocNew)
	rec, ok := e2eSnapshot(t, env, parent).Revision(pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RevisionRevised, rec.Action)

	// CI on the fix is cancelled (a runner outage): the cron re-runs its
	// failed jobs once and spends no cycle.
	_, err = env.Sim.SeedWorkflowRun(repo, githubsim.CIRun{Branch: branch, Jobs: []githubsim.CIJob{{Name: "lint", Conclusion: "cancelled",
		RunnerName: "GitHub Actions 2", Steps: []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}}}}})
	require.NoError(t, err)
	llmCalls := len(script.Requests())
	reruns := func() int {
		n := 0
		for _, r := range env.Sim.Requests() {
			if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/rerun-failed-jobs") {
				n++
			}
		}
		return n
	}
	rs = cron(t)
	res, ok = ciStep(rs, "re-ran the failed jobs")
	require.True(t, ok, "the cron re-ran the cancelled run: %+v", rs)
	t.Logf("one CI re-run step from the cron: %d GitHub requests", res.GitHubRequests)
	assert.Equal(t, 1, reruns())
	rec, ok = e2eSnapshot(t, env, parent).Revision(pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RevisionRerun, rec.Action, "the status comment records the re-run")
	cron(t)
	assert.Equal(t, 1, reruns(), "the re-run is pending: no second re-run")
	assert.Equal(t, llmCalls, len(script.Requests()), "no LLM call: no cycle spent")
	after, err := env.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	assert.Equal(t, fix.SHA, after.SHA, "no commit for an infrastructure failure")
}
