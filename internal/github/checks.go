package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// CheckRun is one check run on a commit, with its output.
type CheckRun struct {
	ID      int64
	Name    string
	HeadSHA string
	// Status is queued | in_progress | completed (and GitHub's other
	// pending states); Conclusion is set once completed.
	Status, Conclusion string
	// App is the slug of the App that ran it ("github-actions" for a job
	// of a workflow, whose check run id is the job id).
	App                  string
	Title, Summary, Text string
	Annotations          int
	StartedAt            time.Time
	CompletedAt          time.Time
}

// Annotation is one line a check run flagged.
type Annotation struct {
	Path                  string
	StartLine, EndLine    int
	Level, Title, Message string
}

// WorkflowRun is one run of a GitHub Actions workflow.
type WorkflowRun struct {
	ID                  int64
	Name, Event         string
	HeadSHA, HeadBranch string
	Status, Conclusion  string
	Attempt             int
}

// Job is one job of a workflow run.
type Job struct {
	ID, RunID          int64
	Name               string
	Status, Conclusion string
	// RunnerName is empty for a job no runner picked up.
	RunnerName  string
	StartedAt   time.Time
	CompletedAt time.Time
	Steps       []Step
}

// Step is one step of a job.
type Step struct {
	Number             int
	Name               string
	Status, Conclusion string
}

// MaxJobLog is the most of a job's log JobLog keeps: its end, where the
// failures are.
const MaxJobLog = 4 << 20

// ListCheckRuns returns the check runs on ref (a commit SHA or branch).
func (c *Client) ListCheckRuns(ctx context.Context, repo Repo, ref string) ([]CheckRun, error) {
	var out []CheckRun
	opts := &gh.ListCheckRunsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, repo.Owner, repo.Name, ref, opts)
		if err != nil {
			return nil, convertError(fmt.Sprintf("list check runs of %s@%s", repo, ref), err)
		}
		for _, r := range res.CheckRuns {
			out = append(out, toCheckRun(r))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func toCheckRun(r *gh.CheckRun) CheckRun {
	out := CheckRun{ID: r.GetID(), Name: r.GetName(), HeadSHA: r.GetHeadSHA(), Status: r.GetStatus(), Conclusion: r.GetConclusion(),
		App: r.GetApp().GetSlug(), StartedAt: r.GetStartedAt().Time, CompletedAt: r.GetCompletedAt().Time}
	if o := r.GetOutput(); o != nil {
		out.Title, out.Summary, out.Text, out.Annotations = o.GetTitle(), o.GetSummary(), o.GetText(), o.GetAnnotationsCount()
	}
	return out
}

// ListCheckRunAnnotations returns check run id's annotations.
func (c *Client) ListCheckRunAnnotations(ctx context.Context, repo Repo, id int64) ([]Annotation, error) {
	anns, err := paginate(func(lo gh.ListOptions) ([]*gh.CheckRunAnnotation, *gh.Response, error) {
		return c.gh.Checks.ListCheckRunAnnotations(ctx, repo.Owner, repo.Name, id, &lo)
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list annotations of check run %d in %s", id, repo), err)
	}
	return mapSlice(anns, func(a *gh.CheckRunAnnotation) Annotation {
		return Annotation{Path: a.GetPath(), StartLine: a.GetStartLine(), EndLine: a.GetEndLine(), Level: a.GetAnnotationLevel(),
			Title: a.GetTitle(), Message: a.GetMessage()}
	}), nil
}

// ListWorkflowRuns returns the workflow runs on commit headSHA, newest
// first.
func (c *Client) ListWorkflowRuns(ctx context.Context, repo Repo, headSHA string) ([]WorkflowRun, error) {
	var out []WorkflowRun
	opts := &gh.ListWorkflowRunsOptions{HeadSHA: headSHA, ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := c.gh.Actions.ListRepositoryWorkflowRuns(ctx, repo.Owner, repo.Name, opts)
		if err != nil {
			return nil, convertError(fmt.Sprintf("list workflow runs of %s@%s", repo, headSHA), err)
		}
		for _, r := range res.WorkflowRuns {
			out = append(out, WorkflowRun{ID: r.GetID(), Name: r.GetName(), Event: r.GetEvent(), HeadSHA: r.GetHeadSHA(),
				HeadBranch: r.GetHeadBranch(), Status: r.GetStatus(), Conclusion: r.GetConclusion(), Attempt: r.GetRunAttempt()})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// ListRunJobs returns the jobs of workflow run runID (its latest
// attempt).
func (c *Client) ListRunJobs(ctx context.Context, repo Repo, runID int64) ([]Job, error) {
	var out []Job
	opts := &gh.ListWorkflowJobsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := c.gh.Actions.ListWorkflowJobs(ctx, repo.Owner, repo.Name, runID, opts)
		if err != nil {
			return nil, convertError(fmt.Sprintf("list jobs of workflow run %d in %s", runID, repo), err)
		}
		for _, j := range res.Jobs {
			job := Job{ID: j.GetID(), RunID: j.GetRunID(), Name: j.GetName(), Status: j.GetStatus(), Conclusion: j.GetConclusion(),
				RunnerName: j.GetRunnerName(), StartedAt: j.GetStartedAt().Time, CompletedAt: j.GetCompletedAt().Time}
			for _, s := range j.Steps {
				job.Steps = append(job.Steps, Step{Number: int(s.GetNumber()), Name: s.GetName(), Status: s.GetStatus(), Conclusion: s.GetConclusion()})
			}
			out = append(out, job)
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// JobLog returns the end (at most MaxJobLog bytes) of job jobID's
// plain-text log, redacted by the client's redactor. GitHub answers the
// log request with a redirect to a short-lived download URL that carries
// its own grant: the download is sent without the client's credentials,
// like Tarball's, and the URL is never logged.
func (c *Client) JobLog(ctx context.Context, repo Repo, jobID int64) (string, error) {
	what := fmt.Sprintf("download the log of job %d in %s", jobID, repo)
	u, _, err := c.gh.Actions.GetWorkflowJobLogs(ctx, repo.Owner, repo.Name, jobID, 0)
	if err != nil {
		return "", convertError(what, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	resp, err := c.download.Do(req)
	if err != nil {
		// The error names the URL and its grant: keep only the cause.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		return "", convertError(what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %w", what, &APIError{Method: http.MethodGet, Path: "(log download)", Status: resp.StatusCode, Message: resp.Status})
	}
	tail, err := readTail(resp.Body, MaxJobLog)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return c.redact(tail), nil
}

// readTail reads r to the end and keeps its last limit bytes.
func readTail(r io.Reader, limit int) (string, error) {
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if len(buf) > 2*limit {
			buf = append(buf[:0], buf[len(buf)-limit:]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if len(buf) > limit {
		buf = buf[len(buf)-limit:]
	}
	return string(buf), nil
}

// ErrBranchUpToDate is UpdatePullBranch's answer when the base has no
// commit the head lacks.
var ErrBranchUpToDate = errors.New("the pull request's branch already has every commit of its base")

// UpdatePullBranch merges pull request number's base branch into its
// head branch, as GitHub's "Update branch" button does: a merge commit on
// top of the head, so commits pushed to the branch (a human's included)
// stay. expectedHead, when set, makes GitHub refuse if the head moved.
// GitHub performs the merge asynchronously (202). A merge conflict or a
// moved head wraps ErrUnprocessable; an up-to-date branch is
// ErrBranchUpToDate.
func (c *Client) UpdatePullBranch(ctx context.Context, repo Repo, number int, expectedHead string) error {
	if err := c.manifest.Check(OpWritePull); err != nil {
		return err
	}
	opts := &gh.PullRequestBranchUpdateOptions{}
	if expectedHead != "" {
		opts.ExpectedHeadSHA = &expectedHead
	}
	_, _, err := c.gh.PullRequests.UpdateBranch(ctx, repo.Owner, repo.Name, number, opts)
	var accepted *gh.AcceptedError
	if err == nil || errors.As(err, &accepted) {
		return nil
	}
	err = convertError(fmt.Sprintf("update the branch of %s#%d", repo, number), err)
	var api *APIError
	if errors.As(err, &api) && api.Status == http.StatusUnprocessableEntity && strings.Contains(api.Message, "no new commits on the base branch") {
		return fmt.Errorf("%w (%w)", ErrBranchUpToDate, err)
	}
	return err
}

// RerunFailedJobs asks GitHub to re-run the failed (and cancelled) jobs of
// workflow run runID, and the jobs that depend on them, as a new attempt
// of the run. GitHub answers 201; a run still in progress is refused with
// 403 ("already running"), returned as an *APIError.
func (c *Client) RerunFailedJobs(ctx context.Context, repo Repo, runID int64) error {
	if err := c.manifest.Check(OpRerunFailedJobs); err != nil {
		return err
	}
	if _, err := c.gh.Actions.RerunFailedJobsByID(ctx, repo.Owner, repo.Name, runID); err != nil {
		return convertError(fmt.Sprintf("re-run the failed jobs of workflow run %d in %s", runID, repo), err)
	}
	return nil
}
