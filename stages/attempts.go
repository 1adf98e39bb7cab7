package stages

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

// reasonBudget is the escalation reason of a refused LLM call.
const reasonBudget = "cost budget exceeded"

// rejection is one failed attempt: a one-line summary and the problems
// for the audit trail, and the feedback the next attempt's prompt gets
// ("" renders the problems with feedbackText).
type rejection struct {
	summary  string
	problems []string
	feedback string
}

// tryFunc is one attempt: n counts from 1 and feedback is what the
// previous attempt's rejection asked the prompt to say ("" on the first).
// A nil rejection is success; an error ends the loop (see attemptLoop).
type tryFunc func(ctx context.Context, n int, feedback string) (*rejection, error)

// attemptLoop is the one attempt loop of the stages: it runs try until an
// attempt passes or max attempts were made, feeding each rejection into
// the next attempt (ASSERT-ARCH-004, ASSERT-CODE-002). An answer that
// still violates the output schema after the gateway's own schema retries
// counts as a failed attempt. Exhaustion is an *escalation.Error with
// reason exhausted listing every attempt; a budget refusal is an
// escalation "cost budget exceeded"; an *escalation.Error from try gets
// the earlier attempts; any other error is returned unchanged. It returns
// the failed attempts in every case.
func attemptLoop(ctx context.Context, max int, exhausted string, try tryFunc) ([]escalation.Attempt, error) {
	var attempts []escalation.Attempt
	feedback := ""
	for n := 1; n <= max; n++ {
		rej, err := try(ctx, n, feedback)
		if err != nil {
			var se *llm.SchemaError
			if !errors.As(err, &se) {
				return attempts, escalate(err, attempts)
			}
			rej = &rejection{summary: "the answer did not match the output schema", problems: []string{err.Error()}}
		}
		if rej == nil {
			return attempts, nil
		}
		attempts = append(attempts, escalation.Attempt{N: n, Summary: rej.summary, Diagnostics: rej.problems})
		feedback = rej.feedback
		if feedback == "" {
			feedback = feedbackText(n, rej.problems)
		}
	}
	return attempts, &escalation.Error{Reason: exhausted, Attempts: attempts}
}

// attemptFunc is one LLM call plus its deterministic validation. feedback
// holds the previous attempt's problems ("" on the first attempt). It
// returns a one-line summary and the problems found (none: success); an
// error ends the loop (see runAttempts).
type attemptFunc func(ctx context.Context, feedback string) (summary string, problems []string, err error)

// runAttempts is attemptLoop for the stages whose attempt is judged by a
// list of problems (intake, architecture, interface design, planning).
func runAttempts(ctx context.Context, stage pipeline.Stage, max int, fn attemptFunc) ([]escalation.Attempt, error) {
	exhausted := fmt.Sprintf("%s: the output still failed validation after %d attempts", stage, max)
	return attemptLoop(ctx, max, exhausted, func(ctx context.Context, _ int, feedback string) (*rejection, error) {
		summary, problems, err := fn(ctx, feedback)
		if err != nil || len(problems) == 0 {
			return nil, err
		}
		return &rejection{summary: summary, problems: problems}, nil
	})
}

// escalate turns a budget refusal into an escalation and gives an
// escalation from an attempt the earlier attempts; other errors pass.
func escalate(err error, attempts []escalation.Attempt) error {
	var be *llm.BudgetExceededError
	if errors.As(err, &be) {
		return &escalation.Error{Reason: reasonBudget,
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

// stageAttempts is how many LLM attempts stages 1–4 get per invocation:
// Budgets.StageMaxRetries counts attempts, the first one included.
func stageAttempts(cfg config.Config) int {
	if cfg.Budgets.StageMaxRetries > 0 {
		return cfg.Budgets.StageMaxRetries
	}
	return defaultStageAttempts
}

// key is a deterministic comment key of work item n.
func key(n int, parts ...string) string {
	return audit.Key(append([]string{strconv.Itoa(n)}, parts...)...)
}
