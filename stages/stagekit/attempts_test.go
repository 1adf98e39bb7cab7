package stagekit

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
)

func TestAttemptLoopPassesEachRejectionsOwnFeedbackOn(t *testing.T) {
	t.Parallel()
	var seen []string
	var ns []int
	attempts, err := AttemptLoop(context.Background(), 3, "unused", func(_ context.Context, n int, feedback string) (*Rejection, error) {
		seen = append(seen, feedback)
		ns = append(ns, n)
		switch n {
		case 1:
			return &Rejection{Summary: "tests failed", Problems: []string{"x_test.go:3: want 2"}, Feedback: "rendered by the stage"}, nil
		case 2:
			return &Rejection{Summary: "vet", Problems: []string{"unused variable"}}, nil
		}
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 3}, ns)
	assert.Equal(t, []string{"", "rendered by the stage", "Attempt 2 was rejected (1 problems):\n- unused variable\n"}, seen,
		"a rejection's own rendering wins; without one the problems are listed")
	assert.Equal(t, []escalation.Attempt{
		{N: 1, Summary: "tests failed", Diagnostics: []string{"x_test.go:3: want 2"}},
		{N: 2, Summary: "vet", Diagnostics: []string{"unused variable"}},
	}, attempts)
}

func TestAttemptLoopEndings(t *testing.T) {
	t.Parallel()
	reject := &Rejection{Summary: "no", Problems: []string{"p"}}
	plain := errors.New("network down")
	tests := []struct {
		name       string
		at2        func() (*Rejection, error)
		wantReason string
		wantErr    error
		attempts   int
	}{
		{"exhaustion escalates with every attempt", func() (*Rejection, error) { return reject, nil }, "gave up", nil, 3},
		{"a schema error is a failed attempt", func() (*Rejection, error) { return nil, &llm.SchemaError{} }, "gave up", nil, 3},
		{"a budget refusal escalates with the refused attempt", func() (*Rejection, error) {
			return nil, &llm.BudgetExceededError{Unit: llm.UnitTokens}
		}, ReasonBudget, nil, 2},
		{"an escalation gets the earlier attempts", func() (*Rejection, error) {
			return nil, &escalation.Error{Reason: "sandbox refused", Attempts: []escalation.Attempt{{N: 9}}}
		}, "sandbox refused", nil, 2},
		{"another error passes unchanged", func() (*Rejection, error) { return nil, plain }, "", plain, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := AttemptLoop(context.Background(), 3, "gave up", func(_ context.Context, n int, _ string) (*Rejection, error) {
				if n == 1 {
					return reject, nil
				}
				return tt.at2()
			})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			var esc *escalation.Error
			require.ErrorAs(t, err, &esc)
			assert.Equal(t, tt.wantReason, esc.Reason)
			assert.Len(t, esc.Attempts, tt.attempts)
			assert.Equal(t, 1, esc.Attempts[0].N)
		})
	}
}
