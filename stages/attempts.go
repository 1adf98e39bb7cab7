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

// defaultStageAttempts applies when the config sets no stage retry budget.
const defaultStageAttempts = 5

// reasonBudget is the escalation reason of a refused LLM call.
const reasonBudget = "cost budget exceeded"

// stageAttempts is how many LLM attempts stages 1–4 get per invocation:
// Budgets.StageMaxRetries counts attempts, the first one included.
func stageAttempts(cfg config.Config) int {
	if cfg.Budgets.StageMaxRetries > 0 {
		return cfg.Budgets.StageMaxRetries
	}
	return defaultStageAttempts
}

// attemptFunc is one LLM call plus its deterministic validation. feedback
// holds the previous attempt's problems ("" on the first attempt). It
// returns a one-line summary and the problems found (none: success); an
// error ends the loop (see runAttempts).
type attemptFunc func(ctx context.Context, feedback string) (summary string, problems []string, err error)

// runAttempts runs fn until it reports no problems or max attempts were
// made, feeding each attempt's problems into the next (ASSERT-ARCH-004).
// An answer that still violates the output schema after the gateway's own
// schema retries counts as a failed attempt. Exhaustion is an
// *escalation.Error listing every attempt; a budget refusal is an
// escalation "cost budget exceeded"; an *escalation.Error from fn gets
// the earlier attempts; any other error is returned unchanged.
func runAttempts(ctx context.Context, stage pipeline.Stage, max int, fn attemptFunc) ([]escalation.Attempt, error) {
	var attempts []escalation.Attempt
	feedback := ""
	for n := 1; n <= max; n++ {
		summary, problems, err := fn(ctx, feedback)
		if err != nil {
			var se *llm.SchemaError
			if !errors.As(err, &se) {
				return attempts, escalate(err, attempts)
			}
			summary, problems = "the answer did not match the output schema", []string{err.Error()}
		}
		if len(problems) == 0 {
			return attempts, nil
		}
		attempts = append(attempts, escalation.Attempt{N: n, Summary: summary, Diagnostics: problems})
		feedback = feedbackText(n, problems)
	}
	return attempts, &escalation.Error{
		Reason:   fmt.Sprintf("%s: the output still failed validation after %d attempts", stage, max),
		Attempts: attempts,
	}
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

// key is a deterministic comment key of work item n.
func key(n int, parts ...string) string {
	return audit.Key(append([]string{strconv.Itoa(n)}, parts...)...)
}
