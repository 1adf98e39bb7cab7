package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/xval"
)

// dirValidator validates a registry directory the way the CLI wires it.
type dirValidator struct{ dir string }

func (v dirValidator) ValidateRegistry(context.Context) error {
	_, err := xval.ValidateDir(v.dir, "", nil)
	return err
}

func TestAssertXDOM001_RegistryValidatedOnEveryRun(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	calls := 0
	f.deps.Registry = registryFunc(func(context.Context) error { calls++; return nil })
	f.step(t)
	f.step(t)
	assert.Equal(t, 2, calls, "validated before the stage of every run step")
}

func TestAssertXDOM002_InvalidRegistryHaltsBeforeAnyStage(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Registry = dirValidator{dir: filepath.Join("..", "..", "xval", "testdata", "badschema")}
	res, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.True(t, isFailed(err))
	assert.Equal(t, OutcomeFailed, res.Outcome)
	assert.Zero(t, f.rec.count(pipeline.StageIntake), "no pipeline stage executes")
	assert.Contains(t, f.labels(), "cogworks:stage:failed")
	assert.NotContains(t, f.labels(), pipeline.LabelProcessing)

	var report string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, audit.Marker(audit.FailureKey(f.issue, "intake"))) {
			report = c.Body
		}
	}
	require.NotEmpty(t, report)
	assert.Contains(t, report, "interface registry is invalid")
	assert.Contains(t, report, ".toml", "the report names the malformed file")
}

type registryFunc func(context.Context) error

func (f registryFunc) ValidateRegistry(ctx context.Context) error { return f(ctx) }
