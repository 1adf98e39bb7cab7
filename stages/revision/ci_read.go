package revision

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/cogworks/cogworks/internal/cifeedback"
	"github.com/cogworks/cogworks/internal/github"
)

// ReadChecks reads what CI says about commit sha, as package cifeedback
// classifies it: every check run with its output; for a failed one its
// annotations and, for a GitHub Actions job, its steps, whether a runner
// picked it up, and its log; and a workflow run that could not start
// (which has no check run). Green runs' jobs are not read. It costs two
// requests, one more per failed workflow run, and two per failed job.
func ReadChecks(ctx context.Context, gh CIReader, repo github.Repo, sha string) ([]cifeedback.Check, error) {
	runs, err := gh.ListCheckRuns(ctx, repo, sha)
	if err != nil {
		return nil, fmt.Errorf("read CI of %s@%s: %w", repo, short(sha), err)
	}
	wruns, err := gh.ListWorkflowRuns(ctx, repo, sha)
	if err != nil {
		return nil, fmt.Errorf("read CI of %s@%s: %w", repo, short(sha), err)
	}
	var checks []cifeedback.Check
	jobs := map[int64]github.Job{}
	runOf := map[int64]github.WorkflowRun{}
	for _, wr := range wruns {
		switch {
		case wr.Conclusion == "startup_failure":
			checks = append(checks, startupFailure(wr))
			continue
		case wr.Status != "completed" || !failedConclusion(wr.Conclusion):
			continue
		}
		js, err := gh.ListRunJobs(ctx, repo, wr.ID)
		if err != nil {
			return nil, fmt.Errorf("read CI of %s@%s: %w", repo, short(sha), err)
		}
		for _, j := range js {
			jobs[j.ID], runOf[j.ID] = j, wr
		}
	}
	for _, cr := range runs {
		c := cifeedback.Check{ID: cr.ID, Name: cr.Name, Status: cr.Status, Conclusion: cr.Conclusion,
			Title: cr.Title, Summary: cr.Summary, Text: cr.Text, Started: true}
		job, isJob := jobs[cr.ID]
		if isJob {
			wr := runOf[cr.ID]
			c.Started, c.RunConclusion = job.RunnerName != "", wr.Conclusion
			c.Run = cifeedback.Run{ID: wr.ID, Name: wr.Name, Attempt: wr.Attempt}
			for _, s := range job.Steps {
				c.Steps = append(c.Steps, cifeedback.Step{Name: s.Name, Conclusion: s.Conclusion})
			}
		}
		if cr.Status != "completed" || (cr.Conclusion != "failure" && cr.Conclusion != "timed_out") {
			checks = append(checks, c)
			continue
		}
		if cr.Annotations > 0 {
			anns, err := gh.ListCheckRunAnnotations(ctx, repo, cr.ID)
			if err != nil {
				return nil, fmt.Errorf("read CI of %s@%s: %w", repo, short(sha), err)
			}
			for _, a := range anns {
				c.Annotations = append(c.Annotations, cifeedback.Annotation{Path: a.Path, Line: a.StartLine, Level: a.Level, Title: a.Title, Message: a.Message})
			}
		}
		if isJob && c.Started {
			log, err := gh.JobLog(ctx, repo, cr.ID)
			var api *github.APIError
			switch {
			case errors.As(err, &api) && (api.Status == http.StatusNotFound || api.Status == http.StatusGone):
				// Logs expire (90 days by default): the annotations and
				// steps are what is left.
			case err != nil:
				return nil, fmt.Errorf("read CI of %s@%s: %w", repo, short(sha), err)
			default:
				c.Log = log
			}
		}
		checks = append(checks, c)
	}
	return checks, nil
}

func failedConclusion(c string) bool {
	switch c {
	case "failure", "timed_out", "cancelled", "stale", "action_required":
		return true
	}
	return false
}
