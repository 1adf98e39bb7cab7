package revision

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cifeedback"
	"github.com/cogworks/cogworks/internal/github"
)

// CI that failed on the infrastructure, not the code (a cancelled job, a
// lost runner, a job no runner took) spends no cycle. CogWorks re-runs
// the failed jobs of such a workflow run once, on the head of its own PR:
// only the run's first attempt is re-run, so the re-run's own failure on
// the infrastructure is reported, not re-run again. A check run of
// another CI app, a workflow that could not start (it has no job to
// re-run) and any run when [revision] rerun_infrastructure_failures is
// off are reported only. A redelivered event after a re-run finds the
// run's new attempt pending (or later its attempt at 2) and re-runs
// nothing; a report is one comment per failure (the failed runs at a
// head, ci_answered.go), found by its marker — before the lock, too.

// Actions of a CI cycle on an infrastructure failure.
const (
	// Rerun: CI failed on the infrastructure only; the failed jobs of its
	// workflow runs were re-run once. No cycle was spent.
	Rerun Action = "rerun"
	// Infrastructure: CI failed on the infrastructure only and nothing
	// could be re-run; one comment on the PR says so. No cycle was spent.
	Infrastructure Action = "infrastructure"
)

// Rerunner re-runs the failed jobs of a workflow run.
type Rerunner interface {
	RerunFailedJobs(ctx context.Context, repo github.Repo, runID int64) error
}

// infrastructure answers a verdict whose failures are all the
// infrastructure's, at head of pr: re-run what may be re-run, else report
// once.
func (r CIReviser) infrastructure(ctx context.Context, repo github.Repo, pr int, head string, v cifeedback.Verdict) (Outcome, error) {
	why := "CI failed on the infrastructure, not the code: " + strings.Join(v.Infra, "; ")
	var reran, left []string
	for _, run := range v.InfraRuns {
		name := fmt.Sprintf("%s (run %d)", run.Name, run.ID)
		switch {
		case run.ID == 0:
			left = append(left, fmt.Sprintf("%s is a check of another CI app, which CogWorks cannot re-run", run.Name))
		case !r.RerunInfrastructure:
			left = append(left, name+" is not re-run: [revision] rerun_infrastructure_failures is off")
		case run.Conclusion == "action_required":
			// A re-run must not stand in for the approval GitHub waits for.
			left = append(left, name+" awaits a maintainer's approval: not re-run")
		case run.Conclusion == "startup_failure":
			left = append(left, name+" could not start (often an invalid workflow file): it has no job to re-run")
		case run.Attempt > 1:
			left = append(left, fmt.Sprintf("%s failed on the infrastructure again in attempt %d, after a re-run: not re-run again", name, run.Attempt))
		default:
			err := r.GitHub.RerunFailedJobs(ctx, repo, run.ID)
			var api *github.APIError
			switch {
			case errors.As(err, &api) && api.Status == http.StatusForbidden && strings.Contains(api.Message, "already running"):
				left = append(left, name+" is already running again")
				continue
			case err != nil:
				return Outcome{}, fmt.Errorf("re-run %s of %s#%d: %w", name, repo, pr, err)
			}
			reran = append(reran, name)
		}
	}
	if len(reran) > 0 {
		reason := why + "; re-ran the failed jobs of " + strings.Join(reran, ", ") + " once"
		if len(left) > 0 {
			reason += "; " + strings.Join(left, "; ")
		}
		return Outcome{Action: Rerun, Reason: reason}, nil
	}
	reason := why
	if len(left) > 0 {
		reason += "; " + strings.Join(left, "; ")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CI failed on %s on the infrastructure, not the code, so CogWorks spent no revision cycle on it:\n\n", short(head))
	for _, f := range v.Infra {
		fmt.Fprintf(&b, "- %s\n", audit.Untrusted(oneLine(f)))
	}
	if len(left) > 0 {
		b.WriteString("\nNot re-run by CogWorks:\n\n")
		for _, l := range left {
			fmt.Fprintf(&b, "- %s\n", audit.Untrusted(oneLine(l)))
		}
	}
	b.WriteString("\nA maintainer re-runs it (Actions → Re-run failed jobs) or pushes a commit.\n")
	wrote, err := r.commentOnce(ctx, repo, pr, prComment{
		Key:   infrastructureKey(pr, head, v.Failed),
		Title: fmt.Sprintf("CI of #%d failed on the infrastructure", pr),
		Body:  b.String(),
	})
	if err != nil {
		return Outcome{}, err
	}
	if !wrote {
		return Outcome{Action: Ignored, Reason: reason + " (already reported)"}, nil
	}
	return Outcome{Action: Infrastructure, Reason: reason}, nil
}

// prComment is a bot comment on a pull request, written once per key.
type prComment struct {
	Key, Title, Body string
}

// commentOnce writes c on pr unless a comment of the bot's already
// carries its key, and says whether it wrote.
func (r CIReviser) commentOnce(ctx context.Context, repo github.Repo, pr int, c prComment) (bool, error) {
	comments, err := r.GitHub.ListComments(ctx, repo, pr)
	if err != nil {
		return false, fmt.Errorf("read comments of %s#%d: %w", repo, pr, err)
	}
	if hasKeyed(comments, r.Bot, c.Key) {
		return false, nil
	}
	body := audit.Format(audit.Comment{Key: c.Key, Title: c.Title, Body: c.Body})
	if _, err := r.GitHub.CreateComment(ctx, repo, pr, body); err != nil {
		return false, fmt.Errorf("comment on %s#%d: %w", repo, pr, err)
	}
	return true, nil
}
