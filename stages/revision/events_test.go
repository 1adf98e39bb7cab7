package revision_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/webhook"
	"github.com/cogworks/cogworks/stages/revision"
)

// TestReviewEventsDriveOneCycle: GitHub sends three deliveries for a
// review with two inline comments (pull_request_review, then one
// pull_request_review_comment each). Each, parsed from the simulator's
// payload, names the PR; the first cycle revises, the others find
// nothing left and write nothing, and the bot's replies, echoed back as
// events, start nothing.
func TestReviewEventsDriveOneCycle(t *testing.T) {
	e := newPREnv(t)
	e.review(t, "alice", "REQUEST_CHANGES", map[int]string{3: "Say what it counts.", 6: "Remove the unused helper."})
	review := e.Sim.Pulls(testenv.Repo.String())[0].Reviews[0]
	events, err := e.Sim.ReviewEvents(testenv.Repo.String(), review.ID, 7)
	require.NoError(t, err)
	require.Len(t, events, 3)

	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	var actions []revision.Action
	for _, ev := range events {
		p, err := webhook.Parse(ev.Body)
		require.NoError(t, err)
		pr, ignore := p.RevisionTrigger(ev.Event, testenv.Bot, nil)
		require.Empty(t, ignore, ev.Event)
		require.Equal(t, e.pr, pr)
		out, err := e.reviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, pr)
		require.NoError(t, err)
		actions = append(actions, out.Action)
	}
	assert.Equal(t, []revision.Action{revision.Revised, revision.Ignored, revision.Ignored}, actions)
	assert.EqualValues(t, 1, gen.calls.Load())
	assert.Equal(t, 1, e.revisionCommits(t))

	// The bot's replies were filed as reviews of their own: their
	// deliveries come back, and are never a trigger.
	pulls := e.Sim.Pulls(testenv.Repo.String())
	replies := 0
	for _, rv := range pulls[0].Reviews {
		if rv.Author != testenv.Bot {
			continue
		}
		echoes, err := e.Sim.ReviewEvents(testenv.Repo.String(), rv.ID, 7)
		require.NoError(t, err)
		for _, ev := range echoes {
			p, err := webhook.Parse(ev.Body)
			require.NoError(t, err)
			_, ignore := p.RevisionTrigger(ev.Event, testenv.Bot, nil)
			assert.NotEmpty(t, ignore, "%s of the bot's reply", ev.Event)
			if ev.Event == "pull_request_review_comment" {
				replies++
			}
		}
	}
	assert.Equal(t, 2, replies)
}
