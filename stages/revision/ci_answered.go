package revision

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cifeedback"
	"github.com/cogworks/cogworks/internal/github"
)

// A CI failure CogWorks answered with a comment — an escalation, or a
// report of an infrastructure failure nothing re-ran — stays red until a
// maintainer acts. The cron sweeps the PR all the while; PendingCI reads
// the answer's marker before the lock, so those sweeps write nothing.
// Only the bot's own comment counts: anybody can paste a marker.

// escalationKey marks the escalation of pr's CI revisions at head: once
// escalated, CogWorks leaves that head, whatever fails on it, to a
// maintainer.
func escalationKey(pr int, head string) string {
	return audit.Key("ci-revision", strconv.Itoa(pr), head, "escalated")
}

// infrastructureKey marks the report of an infrastructure failure of pr
// at head, naming the failed runs (cifeedback.FailureKey): a maintainer's
// re-run that fails again, on the code or not, is a new failure with a
// new answer.
func infrastructureKey(pr int, head, failed string) string {
	return audit.Key("ci-revision", strconv.Itoa(pr), head, "infrastructure", failed)
}

// answeredAt says why the failed checks at head of pr need no cycle: a
// comment of bot's escalated head, or reported exactly these failures. ""
// when none did.
func answeredAt(comments []github.Comment, bot string, pr int, head string, checks []cifeedback.Check) string {
	switch {
	case hasKeyed(comments, bot, escalationKey(pr, head)):
		return fmt.Sprintf("CI revisions of #%d were already escalated at %s: a maintainer takes it from here", pr, short(head))
	case hasKeyed(comments, bot, infrastructureKey(pr, head, cifeedback.FailureKey(checks))):
		return fmt.Sprintf("the infrastructure failure at %s was already reported on #%d", short(head), pr)
	}
	return ""
}

// hasKeyed says a comment of bot's carries key: the test commentOnce
// writes by and answeredAt reads by, so the two cannot drift apart.
func hasKeyed(comments []github.Comment, bot, key string) bool {
	return slices.ContainsFunc(comments, func(c github.Comment) bool {
		k, ok := audit.FindKey(c.Body)
		return ok && k == key && strings.EqualFold(c.User, bot)
	})
}

// listChecks reads commit sha's check runs and workflow runs, in two
// requests, as the checks ReadChecks starts from (without their logs,
// annotations and steps): enough to see what failed and to name it.
func listChecks(ctx context.Context, gh CIReader, repo github.Repo, sha string) ([]cifeedback.Check, error) {
	runs, err := gh.ListCheckRuns(ctx, repo, sha)
	if err != nil {
		return nil, fmt.Errorf("read checks of %s@%s: %w", repo, short(sha), err)
	}
	wruns, err := gh.ListWorkflowRuns(ctx, repo, sha)
	if err != nil {
		return nil, fmt.Errorf("read workflow runs of %s@%s: %w", repo, short(sha), err)
	}
	var checks []cifeedback.Check
	for _, wr := range wruns {
		if wr.Conclusion == "startup_failure" {
			checks = append(checks, startupFailure(wr))
		}
	}
	for _, cr := range runs {
		checks = append(checks, cifeedback.Check{ID: cr.ID, Name: cr.Name, Status: cr.Status, Conclusion: cr.Conclusion})
	}
	return checks, nil
}

// startupFailure is workflow run wr that could not start (an invalid
// workflow file): it has no job, hence no check run, so it stands as a
// check of its own.
func startupFailure(wr github.WorkflowRun) cifeedback.Check {
	return cifeedback.Check{Name: wr.Name, Status: "completed", Conclusion: wr.Conclusion, RunConclusion: wr.Conclusion,
		Run: cifeedback.Run{ID: wr.ID, Name: wr.Name, Attempt: wr.Attempt}}
}

// triggers says check c asks for a CI cycle: it failed, timed out or was
// cancelled, or its workflow could not start. A run awaiting a
// maintainer's approval or gone stale asks for nothing by itself.
func triggers(c cifeedback.Check) bool {
	if c.RunConclusion == "startup_failure" {
		return true
	}
	return c.Status == "completed" && (c.Conclusion == "failure" || c.Conclusion == "timed_out" || c.Conclusion == "cancelled")
}
