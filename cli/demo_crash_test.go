package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/engine"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

// crashAt kills the process at the k-th write (non-GET) request: before,
// the request never reaches GitHub; after, GitHub applies it and the
// answer is lost. From then on nothing more is sent, as from a dead
// process (retries included).
type crashAt struct {
	k      int64
	after  bool
	writes atomic.Int64
	dead   atomic.Bool
}

func (c *crashAt) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.dead.Load() {
		return nil, fmt.Errorf("process crashed at write %d", c.k)
	}
	if req.Method == http.MethodGet || c.writes.Add(1) != c.k {
		return http.DefaultTransport.RoundTrip(req)
	}
	c.dead.Store(true)
	if c.after {
		if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return nil, fmt.Errorf("injected crash at write %d (%s %s)", c.k, req.Method, req.URL.Path)
}

// pipelineState is what must come out the same however the run was
// interrupted.
type pipelineState struct {
	Labels   []string
	Keys     []string
	Pulls    []string
	Issues   int
	Stage    pipeline.Stage
	SWIs     []string
	HeadCode map[string]string
}

func capturePipeline(t *testing.T, r *DemoReport) pipelineState {
	t.Helper()
	repo := r.Repo.String()
	st := pipelineState{Stage: r.Snapshot.Stage}
	st.Labels = append(st.Labels, r.Sim.Labels(repo, r.Issue)...)
	sort.Strings(st.Labels)
	for _, c := range r.Sim.Comments(repo, r.Issue) {
		key, ok := audit.FindKey(c.Body)
		if !ok {
			key = "(unkeyed)"
		}
		if strings.HasPrefix(key, fmt.Sprintf("%d/step/", r.Issue)) {
			// Step records belong to the run that made them (one per step,
			// a crashed step's record may be missing); they are not state.
			continue
		}
		st.Keys = append(st.Keys, key) // duplicates would show as repeated keys
	}
	sort.Strings(st.Keys)
	for _, pr := range r.Sim.Pulls(repo) {
		st.Pulls = append(st.Pulls, fmt.Sprintf("%s→%s %s %s", pr.Head, pr.Base, pr.State, pr.Title))
	}
	sort.Strings(st.Pulls)
	for n := 1; ; n++ {
		if _, ok := r.Sim.Issue(repo, n); !ok {
			break
		}
		st.Issues++
	}
	for _, swi := range r.Snapshot.Artifacts.SubWorkItems {
		labels := append([]string(nil), r.Sim.Labels(repo, swi.Issue)...)
		sort.Strings(labels)
		st.SWIs = append(st.SWIs, fmt.Sprintf("%s #%d %s PR#%d %v", swi.ID, swi.Issue, swi.Status, swi.PR, labels))
	}
	last := r.Snapshot.Artifacts.SubWorkItems[len(r.Snapshot.Artifacts.SubWorkItems)-1]
	st.HeadCode = r.Sim.BranchFiles(repo, last.Branch)
	return st
}

// TestDemoPipelineCrashAtWritesRecovers interrupts the real pipeline
// (real stages, real Go domain service) at a spread of its GitHub writes,
// before and after the write lands, then lets a new process carry on
// after the lock timeout, and finds exactly the state of an uninterrupted
// run: no duplicate comments, issues or PRs and no lock left.
func TestDemoPipelineCrashAtWritesRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole pipeline many times")
	}
	ctx := context.Background()
	run := func(t *testing.T, tr http.RoundTripper, clock func() time.Time) (*DemoReport, error) {
		// A dead process does not retry: the crashing client sends each
		// request once.
		t.Helper()
		f := &Factory{IO: IOStreams{Out: &bytes.Buffer{}, ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
		report, cleanup, err := RunDemo(ctx, f, &DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30, Transport: tr, Clock: clock,
			Retry: github.RetryPolicy{MaxRetries: -1}})
		t.Cleanup(cleanup)
		return report, err
	}
	counter := &crashAt{k: -1}
	clean, err := run(t, counter, nil)
	require.NoError(t, err)
	want := capturePipeline(t, clean)
	total := counter.writes.Load()
	require.Greater(t, total, int64(50))

	const stride = 13
	for k := int64(3); k <= total; k += stride {
		after := (k/stride)%2 == 1
		name := fmt.Sprintf("crash before write %d", k)
		if after {
			name = fmt.Sprintf("crash after write %d", k)
		}
		t.Run(name, func(t *testing.T) {
			// One clock for the simulator and the steps; the new process
			// starts after the lock timeout, as a cron run would.
			var offset atomic.Int64
			clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
			report, err := run(t, &crashAt{k: k, after: after}, clock)
			require.Error(t, err, "the injected crash stops the run")
			offset.Store(int64(31 * time.Minute))
			require.NoError(t, report.Resume(ctx, clock))
			assert.Equal(t, engine.OutcomeComplete, report.Final)
			got := capturePipeline(t, report)
			assert.Equal(t, want, got)
			assert.NotContains(t, got.Labels, pipeline.LabelProcessing, "no lock left behind")
			for _, key := range got.Keys {
				assert.False(t, strings.Contains(key, "/lock/"), "no lock claim left behind: %s", key)
			}
		})
	}
}
