package stages

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
)

// *github.Client is the production GitHub port of every executor.
var _ GitHub = (*github.Client)(nil)

// commentsOnly exposes nothing of the client but the comment API: a fake
// needs no more to drive intake.
type commentsOnly struct{ idem.CommentAPI }

func TestIntakeRunsOnTheCommentPortAlone(t *testing.T) {
	t.Parallel()
	f := newFHFixture(t, nil)
	f.addJSON(t, prompts.Classify, sampleClassification)
	x := intakeExecutor{d: f.deps, gh: commentsOnly{f.env.Client}}
	res, err := x.Execute(context.Background(), f.input(t, pipeline.StageIntake, f.snapshot()))
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
}
