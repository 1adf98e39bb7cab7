package intake_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/intake"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// commentsOnly exposes nothing of the client but the comment API: a fake
// needs no more to drive intake.
type commentsOnly struct{ idem.CommentAPI }

func TestIntakeRunsOnTheCommentPortAlone(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.AddJSON(t, prompts.Classify, stagetest.SampleClassification)
	x := intake.New(f.Deps.Deps, commentsOnly{f.Env.Client})
	res, err := stagetest.Execute(context.Background(), x, f.Input(t, pipeline.StageIntake, f.Snapshot()))
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
}
