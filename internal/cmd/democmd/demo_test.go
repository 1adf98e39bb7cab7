//go:build e2e

package democmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// TestDemoPipeline runs the demo pipeline once for real, as `cogworks demo`
// does, and checks what a user gets from it; then it interrupts the same
// pipeline at a spread of its GitHub writes and checks that a new process
// recovers to the same state. The crash runs replay the clean run's domain
// service answers: the toolchain is nearly all of a run's CPU, and a second
// real run would only repeat it.
func TestDemoPipeline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	replay := &domainReplay{answers: map[string][]byte{}}
	counter := &crashAt{k: -1}
	report, err := runCrashableDemo(t, &out, counter, nil, replay)
	require.NoError(t, err, out.String())
	want := capturePipeline(t, report)
	logs := report.Sim.Requests() // before checkDemoCompleted resets the log

	t.Run("completes as a user sees it", func(t *testing.T) {
		checkDemoCompleted(t, report, out.String())
	})
	t.Run("every request and answer is as GitHub's OpenAPI description has it", func(t *testing.T) {
		d, err := openapi.Default()
		require.NoError(t, err)
		require.NotEmpty(t, logs)
		require.NoError(t, d.CheckLog(logs))
	})
	t.Run("doctor passes against the kept simulator", func(t *testing.T) {
		checkDoctorAgainstDemo(t, report)
	})
	t.Run("recovers from a crash at any write", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs the whole pipeline many times")
		}
		crashMatrix(t, want, counter.writes.Load(), replay)
	})
}

// checkDoctorAgainstDemo runs `cogworks doctor` against the demo's
// simulator as a user would after `demo --keep` (README), with the demo's
// token: the bot the demo writes as has write access there, as an installed
// App has.
func checkDoctorAgainstDemo(t *testing.T, report *democmd.DemoReport) {
	t.Helper()
	var out bytes.Buffer
	f := factory.NewFactory(factory.IOStreams{Out: &out, ErrOut: &out})
	env := map[string]string{"COGWORKS_GITHUB_API_URL": report.URL + "/api/v3/", "COGWORKS_GITHUB_TOKEN": democmd.DemoToken,
		"COGWORKS_STATE_KEY": string(statesig.DemoKey())}
	f.Getenv = func(k string) string { return env[k] }
	f.Environ = func() []string { return nil }
	err := cmdtest.Execute(t, f, "doctor", "--offline", "--repo", report.Repo.String(), "--workspace", t.TempDir())
	assert.NoError(t, err, out.String())
	assert.Regexp(t, `(?m)^ok +permissions`, out.String())
}

// checkDemoCompleted checks a finished demo run: every PR's code builds and
// passes go test through the reference domain service, nothing was merged,
// the request budget held, and re-running a step on the finished pipeline
// changes nothing.
func checkDemoCompleted(t *testing.T, report *democmd.DemoReport, text string) {
	t.Helper()
	assert.Equal(t, engine.OutcomeComplete, report.Final)
	assert.Equal(t, pipeline.StageComplete, report.Snapshot.Stage)
	assert.Contains(t, report.Sim.Labels(report.Repo.String(), report.Issue), "cogworks:stage:complete")
	require.Len(t, report.Snapshot.SubWorkItems, 2)
	for _, swi := range report.Snapshot.SubWorkItems {
		assert.Equal(t, pipeline.SWICompleted, swi.Status)
		assert.NotZero(t, swi.PR)
	}
	assert.Len(t, report.Pulls, 4, "spec, interfaces and one PR per sub-work-item")
	for _, pr := range report.Pulls {
		assert.Equal(t, "open", pr.State, "CogWorks never merges")
	}
	for _, r := range report.Sim.Requests() {
		assert.False(t, r.Method == "PUT" && strings.HasSuffix(r.Path, "/merge"), "no merge request: %s", r.Path)
	}
	var requests int64
	for _, s := range report.Steps {
		requests += s.GitHubRequests
	}
	assert.LessOrEqual(t, requests, int64(demoRequestBudget), "issue 21's request budget for the whole demo pipeline")
	// The simulator saw the steps' requests plus the summary's one read of
	// the status comment: none of a step's requests went uncounted.
	assert.Equal(t, int64(report.Sim.RequestCount()), requests+1, "every step request is counted by exactly one step")
	assert.Contains(t, text, "attempt 2", "the first code attempt failed to compile and was fixed")
	assert.Contains(t, text, "alice (maintainer) reviews the gate")
	assert.Contains(t, text, "| **total** |")

	// The top of the PR stack holds every SWI's code: build and test it
	// through the domain service, on a workspace made of the branch's files.
	last := report.Snapshot.SubWorkItems[1]
	files := report.Sim.BranchFiles(report.Repo.String(), last.Branch)
	require.Contains(t, files, "telemetry/publisher.go")
	require.Contains(t, files, "telemetry/brake.go")
	ws := t.TempDir()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(ws, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(files[p]), 0o644))
	}
	client, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: "unix", Endpoint: report.Socket})
	require.NoError(t, err)
	defer client.Close()
	ctx := context.Background()
	_, err = client.Handshake(ctx)
	require.NoError(t, err)
	req := domain.Request{Repository: domain.Repository{Path: ws}}
	diags, err := client.Validate(ctx, req)
	require.NoError(t, err)
	assert.Empty(t, domain.Blocking(diags.Diagnostics), "the PR's code builds and vets")
	sim, err := client.Simulate(ctx, req, domain.SimulateParams{Packages: []string{"./..."}})
	require.NoError(t, err)
	assert.True(t, sim.Passed, "go test passes on the PR's code:\n%s", sim.Output)
	assert.NotEmpty(t, sim.Tests)

	// Re-running a step on the finished pipeline writes nothing.
	report.Sim.ResetRequests()
	deps, err := report.StepDeps(ctx)
	require.NoError(t, err)
	res, err := engine.Step(ctx, deps, engine.Ref{Repo: report.Repo, Issue: report.Issue})
	require.NoError(t, err)
	assert.Equal(t, engine.OutcomeComplete, res.Outcome)
	for _, r := range report.Sim.Requests() {
		assert.Equal(t, "GET", r.Method, "re-run wrote %s %s", r.Method, r.Path)
	}
}
