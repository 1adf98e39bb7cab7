//go:build e2e

package democmd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
)

// TestDemoSamples runs `cogworks demo --sample <language>` for every
// non-Go sample with the real toolchain: the pipeline completes with one
// PR holding the second code attempt, and the demo says the first one
// failed the toolchain and the second answered its report. A missing
// toolchain skips, except under CI=true (where .ci/run installs them all).
func TestDemoSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole pipelines with real toolchains")
	}
	for _, name := range demo.SampleNames() {
		t.Run(name, func(t *testing.T) {
			s, err := demo.LoadSample(name)
			require.NoError(t, err)
			if _, _, err := s.Service(context.Background(), os.Getenv); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true and the toolchain is missing: %v", err)
				}
				t.Skipf("toolchain missing: %v", err)
			}
			var out bytes.Buffer
			f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(k string) string {
				if k == demo.NodeToolsEnv {
					return os.Getenv(k)
				}
				return ""
			}}
			report, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30, Sample: name})
			t.Cleanup(cleanup)
			require.NoError(t, err, out.String())
			require.Equal(t, engine.OutcomeComplete, report.Final, out.String())
			assert.Equal(t, s.Repo, report.Repo.Name)
			require.Len(t, report.Pulls, 1, out.String())
			head := fmt.Sprintf("cogworks/%d/swi-1", report.Issue)
			assert.Equal(t, head, report.Pulls[0].Head)
			assert.Contains(t, report.Sim.BranchFiles(report.Repo.String(), head)[s.FixedPath], s.Fixed, "the PR holds the fix")
			assert.Contains(t, out.String(), "The first code attempt failed the real toolchain")
			assert.Contains(t, out.String(), s.Feedback)
			var requests int64
			for _, st := range report.Steps {
				requests += st.GitHubRequests
			}
			t.Logf("demo --sample %s: %d GitHub requests in %d steps", name, requests, len(report.Steps))
		})
	}
}

// TestDemoUnknownSample: an unknown sample is a usage error naming the
// samples there are.
func TestDemoUnknownSample(t *testing.T) {
	var out bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
	_, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", Sample: "cobol"})
	t.Cleanup(cleanup)
	var uerr *factory.UsageError
	require.ErrorAs(t, err, &uerr)
	assert.Contains(t, err.Error(), "python")
}
