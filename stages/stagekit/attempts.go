package stagekit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// ReasonBudget is the escalation reason of a refused LLM call.
const ReasonBudget = "cost budget exceeded"

// Rejection is one failed attempt: a one-line summary and the problems
// for the audit trail, and the feedback the next attempt's prompt gets
// ("" renders the problems with feedbackText).
type Rejection struct {
	Summary  string
	Problems []string
	Feedback string
}

// tryFunc is one attempt: n counts from 1 and feedback is what the
// previous attempt's rejection asked the prompt to say ("" on the first).
// A nil rejection is success; an error ends the loop (see AttemptLoop).
type tryFunc func(ctx context.Context, n int, feedback string) (*Rejection, error)

// AttemptLoop is the one attempt loop of the stages: it runs try until an
// attempt passes or max attempts were made, feeding each rejection into
// the next attempt (ASSERT-ARCH-004, ASSERT-CODE-002). An answer that
// still violates the output schema after the gateway's own schema retries
// counts as a failed attempt. Exhaustion is an *escalation.Error with
// reason exhausted listing every attempt; a budget refusal is an
// escalation "cost budget exceeded"; an *escalation.Error from try gets
// the earlier attempts; any other error is returned unchanged. It returns
// the failed attempts in every case.
func AttemptLoop(ctx context.Context, max int, exhausted string, try tryFunc) ([]escalation.Attempt, error) {
	var attempts []escalation.Attempt
	feedback := ""
	for n := 1; n <= max; n++ {
		rej, err := try(ctx, n, feedback)
		if err != nil {
			var se *llm.SchemaError
			if !errors.As(err, &se) {
				return attempts, Escalate(err, attempts)
			}
			rej = &Rejection{Summary: "the answer did not match the output schema", Problems: []string{err.Error()}}
		}
		if rej == nil {
			return attempts, nil
		}
		attempts = append(attempts, escalation.Attempt{N: n, Summary: rej.Summary, Diagnostics: rej.Problems})
		feedback = rej.Feedback
		if feedback == "" {
			feedback = feedbackText(n, rej.Problems)
		}
	}
	return attempts, &escalation.Error{Reason: exhausted, Attempts: attempts}
}

// attemptFunc is one LLM call plus its deterministic validation. feedback
// holds the previous attempt's problems ("" on the first attempt). It
// returns a one-line summary and the problems found (none: success); an
// error ends the loop (see RunAttempts).
type attemptFunc func(ctx context.Context, feedback string) (summary string, problems []string, err error)

// RunAttempts is AttemptLoop for the stages whose attempt is judged by a
// list of problems (intake, architecture, interface design, planning).
func RunAttempts(ctx context.Context, stage pipeline.Stage, max int, fn attemptFunc) ([]escalation.Attempt, error) {
	exhausted := fmt.Sprintf("%s: the output still failed validation after %d attempts", stage, max)
	return AttemptLoop(ctx, max, exhausted, func(ctx context.Context, _ int, feedback string) (*Rejection, error) {
		summary, problems, err := fn(ctx, feedback)
		if err != nil || len(problems) == 0 {
			return nil, err
		}
		return &Rejection{Summary: summary, Problems: problems}, nil
	})
}

// Escalate turns a budget refusal into an escalation and gives an
// escalation from an attempt the earlier attempts; other errors pass.
func Escalate(err error, attempts []escalation.Attempt) error {
	var be *llm.BudgetExceededError
	if errors.As(err, &be) {
		return &escalation.Error{Reason: ReasonBudget,
			Attempts: append(attempts, escalation.Attempt{N: len(attempts) + 1, Summary: be.Error()})}
	}
	var esc *escalation.Error
	if errors.As(err, &esc) {
		return &escalation.Error{Code: esc.Code, Reason: esc.Reason, Attempts: append(attempts, esc.Attempts...)}
	}
	return err
}

// feedbackText is what the next attempt's prompt gets: every problem of
// the previous attempt on its own line.
func feedbackText(n int, problems []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Attempt %d was rejected (%d problems):\n", n, len(problems))
	for _, p := range problems {
		b.WriteString("- ")
		b.WriteString(p)
		b.WriteString("\n")
	}
	return b.String()
}

// defaultStageAttempts applies when the config sets no stage retry budget.
const defaultStageAttempts = 5

// StageAttempts is how many LLM attempts stages 1–4 get per invocation:
// Budgets.StageMaxRetries counts attempts, the first one included.
func StageAttempts(cfg config.Config) int {
	if cfg.Budgets.StageMaxRetries > 0 {
		return cfg.Budgets.StageMaxRetries
	}
	return defaultStageAttempts
}

// Key is a deterministic comment key of work item n.
func Key(n int, parts ...string) string {
	return audit.Key(append([]string{strconv.Itoa(n)}, parts...)...)
}
