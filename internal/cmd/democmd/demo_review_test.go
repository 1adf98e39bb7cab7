//go:build e2e

package democmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
)

// TestDemoReviewCycle runs `cogworks demo` as the command does, with its
// review-and-revise cycle, on the plan of one sub-work-item: the
// maintainer's two inline comments on the codec's PR get one follow-up
// commit that edits both doc comments, validated by the real Go domain
// service, and one reply each; the status comment records the cycle.
func TestDemoReviewCycle(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
	report, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30, OneSWI: true, Review: true})
	defer cleanup()
	require.NoError(t, err, out.String())
	assert.Contains(t, out.String(), "requests changes on #")
	assert.Regexp(t, `the revision: \d+ GitHub requests, 4 LLM calls`, out.String(), "one code attempt and three review passes")
	last := report.Steps[len(report.Steps)-1]
	assert.Equal(t, engine.ActionRevise, last.Action)
	assert.Equal(t, engine.OutcomeAdvanced, last.Outcome)

	head := "cogworks/1/swi-1"
	brake := report.Sim.BranchFiles(report.Repo.String(), head)[demo.ReviewPath]
	assert.Contains(t, brake, "// whose 4-byte payload is big-endian (SWD-IF-CAN-01).")
	assert.Contains(t, brake, "// returns the brake pressure in kPa.")
	rec, ok := report.Snapshot.Revision(6)
	if !ok {
		for _, r := range report.Snapshot.Revisions {
			rec, ok = r, true
		}
	}
	require.True(t, ok, "the status comment records the revision")
	assert.Equal(t, pipeline.RevisionRevised, rec.Action)
	assert.Equal(t, 2, rec.Threads)
	replies := 0
	for _, p := range report.Pulls {
		if p.Head != head {
			continue
		}
		for _, rv := range p.Reviews {
			for _, c := range rv.Comments {
				if rv.Author == "cogworks[bot]" && strings.Contains(c.Body, "Revised in ") {
					replies++
				}
			}
		}
	}
	assert.Equal(t, 2, replies, "one reply per thread")
}
