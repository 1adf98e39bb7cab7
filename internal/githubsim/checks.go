package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CIRun is a workflow run a test seeds on a commit (SeedWorkflowRun): one
// check suite of GitHub Actions, one workflow run, and per job one job
// and one check run of the same id, as GitHub Actions creates them.
type CIRun struct {
	// Name is the workflow's name ("CI" when empty); Path its file.
	Name, Path string
	// HeadSHA is the commit run on; Branch its branch (HeadSHA empty: the
	// branch's head).
	HeadSHA, Branch string
	// Event is what triggered it ("pull_request" when empty).
	Event string
	// Conclusion overrides the run's and suite's conclusion the jobs
	// would give (e.g. "startup_failure": the workflow file is invalid
	// and no job ran).
	Conclusion string
	Jobs       []CIJob
}

// CIJob is one job of a seeded run and its check run.
type CIJob struct {
	Name string
	// Status is "completed" when empty; Conclusion one of GitHub's job
	// conclusions (success, failure, cancelled, timed_out, skipped).
	Status, Conclusion string
	Steps              []CIStep
	// Log is the job's plain-text log, served through the log download.
	Log string
	// Title, Summary and Text are the check run's output.
	Title, Summary, Text string
	Annotations          []CIAnnotation
	// RunnerName is the runner that ran the job; empty for a job no
	// runner picked up.
	RunnerName string
}

// CIStep is one step of a job.
type CIStep struct{ Name, Conclusion string }

// CIAnnotation is one check-run annotation.
type CIAnnotation struct {
	Path                  string
	Line                  int
	Level, Title, Message string
}

// CIRunIDs are the ids SeedWorkflowRun created.
type CIRunIDs struct {
	Run, Suite int64
	// Jobs are the job (and check run) ids, in the order of CIRun.Jobs.
	Jobs []int64
}

type ciRun struct {
	id, suiteID                            int64
	name, path, event, headSHA, headBranch string
	conclusionOverride                     string
	number, attempt                        int
	created, updated                       time.Time
	jobs                                   []*ciJob
}

type ciJob struct {
	id      int64
	spec    CIJob
	created time.Time
}

// SeedWorkflowRun records a completed (or, per job Status, pending)
// workflow run on repo and returns its ids.
func (s *Server) SeedWorkflowRun(repo string, run CIRun) (CIRunIDs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return CIRunIDs{}, fmt.Errorf("githubsim: no repository %s", repo)
	}
	if run.HeadSHA == "" {
		sha, ok := rp.refs["refs/heads/"+run.Branch]
		if !ok {
			return CIRunIDs{}, fmt.Errorf("githubsim: %s has no branch %q", repo, run.Branch)
		}
		run.HeadSHA = sha
	}
	if run.Name == "" {
		run.Name = "CI"
	}
	if run.Path == "" {
		run.Path = ".github/workflows/ci.yml"
	}
	if run.Event == "" {
		run.Event = "pull_request"
	}
	now := s.now().UTC()
	r := &ciRun{id: s.id(), suiteID: s.id(), name: run.Name, path: run.Path, event: run.Event,
		headSHA: run.HeadSHA, headBranch: run.Branch, conclusionOverride: run.Conclusion,
		number: len(rp.ciRuns) + 1, attempt: 1, created: now, updated: now}
	ids := CIRunIDs{Run: r.id, Suite: r.suiteID}
	for _, j := range run.Jobs {
		if j.Status == "" {
			j.Status = "completed"
		}
		job := &ciJob{id: s.id(), spec: j, created: now}
		r.jobs = append(r.jobs, job)
		ids.Jobs = append(ids.Jobs, job.id)
	}
	rp.ciRuns = append(rp.ciRuns, r)
	return ids, nil
}

// SetJob replaces what job jobID of repo reports (a re-run finishing).
func (s *Server) SetJob(repo string, jobID int64, job CIJob) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return fmt.Errorf("githubsim: no repository %s", repo)
	}
	r, j := rp.ciJob(jobID)
	if j == nil {
		return fmt.Errorf("githubsim: %s has no job %d", repo, jobID)
	}
	if job.Status == "" {
		job.Status = "completed"
	}
	j.spec = job
	r.updated = s.now().UTC()
	return nil
}

func (rp *repo) ciJob(id int64) (*ciRun, *ciJob) {
	for _, r := range rp.ciRuns {
		for _, j := range r.jobs {
			if j.id == id {
				return r, j
			}
		}
	}
	return nil, nil
}

func (rp *repo) ciRunByID(id int64) *ciRun {
	for _, r := range rp.ciRuns {
		if r.id == id {
			return r
		}
	}
	return nil
}

// status is the run's (and its suite's) status: completed once every
// job is.
func (r *ciRun) status() string {
	if r.conclusionOverride != "" {
		return "completed"
	}
	for _, j := range r.jobs {
		if j.spec.Status != "completed" {
			return j.spec.Status
		}
	}
	return "completed"
}

// conclusion is what GitHub concludes from the jobs: failure when one
// failed or timed out, else cancelled when one was, else success.
func (r *ciRun) conclusion() any {
	if r.conclusionOverride != "" {
		return r.conclusionOverride
	}
	if r.status() != "completed" {
		return nil
	}
	out := "success"
	for _, j := range r.jobs {
		switch j.spec.Conclusion {
		case "failure", "timed_out":
			return "failure"
		case "cancelled":
			out = "cancelled"
		}
	}
	return out
}

func nilIfZeroTime(done bool, t time.Time) any {
	if !done {
		return nil
	}
	return ts(t)
}

func (c *call) actionsAppJSON() map[string]any {
	return map[string]any{"id": 15368, "slug": "github-actions", "node_id": nodeID("A", 15368), "name": "GitHub Actions",
		"owner": c.userJSON("github"), "description": "Automate your workflow from idea to production",
		"external_url": "https://help.github.com/en/actions", "html_url": "https://github.com/apps/github-actions",
		"created_at": "2018-07-30T09:30:17Z", "updated_at": "2019-12-10T19:04:12Z",
		"permissions": map[string]any{"checks": "write", "contents": "write", "metadata": "read"}, "events": []any{}}
}

// prRefsFor lists the open pull requests of the repository whose head is
// the run's branch at its commit, in the short shape check and workflow
// payloads carry.
func (c *call) prRefsFor(branch, sha string) []any {
	out := []any{}
	for _, pr := range c.repo.pulls {
		if pr.headRef != branch || c.branchSHA(pr.headRef, pr.headSHA) != sha || c.repo.issues[pr.number].state != "open" {
			continue
		}
		side := func(ref, sha string) map[string]any {
			return map[string]any{"ref": ref, "sha": sha,
				"repo": map[string]any{"id": c.repo.id, "url": c.repoURL(), "name": c.repo.name}}
		}
		out = append(out, map[string]any{"url": c.repoURL() + "/pulls/" + itoa(pr.number), "id": int64(pr.number) + 1_000_000, "number": pr.number,
			"head": side(pr.headRef, sha), "base": side(pr.baseRef, c.branchSHA(pr.baseRef, ""))})
	}
	return out
}

func (c *call) checkSuiteJSON(r *ciRun) map[string]any {
	return map[string]any{
		"id": r.suiteID, "node_id": nodeID("CS", r.suiteID), "head_branch": nilIfEmpty(r.headBranch), "head_sha": r.headSHA,
		"status": r.status(), "conclusion": r.conclusion(), "url": c.repoURL() + "/check-suites/" + strconv.FormatInt(r.suiteID, 10),
		"before": nil, "after": r.headSHA, "pull_requests": c.prRefsFor(r.headBranch, r.headSHA), "app": c.actionsAppJSON(),
		"repository": c.repoJSON(), "created_at": ts(r.created), "updated_at": ts(r.updated), "head_commit": c.headCommitJSON(r.headSHA),
		"latest_check_runs_count": len(r.jobs), "check_runs_url": c.repoURL() + "/check-suites/" + strconv.FormatInt(r.suiteID, 10) + "/check-runs",
		"rerequestable": true, "runs_rerequestable": true,
	}
}

func (c *call) headCommitJSON(sha string) map[string]any {
	m := map[string]any{"id": sha, "tree_id": c.repo.commitTree(sha), "message": "", "timestamp": ts(c.now), "author": nil, "committer": nil}
	if o, ok := c.repo.objects[sha]; ok && o.kind == "commit" {
		m["message"] = o.commit.message
		// A bot's noreply address has "[bot]" in it, which the
		// description's email format refuses; GitHub's payloads show it
		// without.
		email := func(e string) string { return strings.NewReplacer("[", "", "]", "").Replace(e) }
		m["author"] = map[string]any{"name": o.commit.author.name, "email": email(o.commit.author.email)}
		m["committer"] = map[string]any{"name": o.commit.committer.name, "email": email(o.commit.committer.email)}
	}
	return m
}

func (c *call) checkRunJSON(r *ciRun, j *ciJob) map[string]any {
	id := strconv.FormatInt(j.id, 10)
	done := j.spec.Status == "completed"
	conclusion := any(nil)
	if done {
		conclusion = j.spec.Conclusion
	}
	return map[string]any{
		"id": j.id, "node_id": nodeID("CR", j.id), "head_sha": r.headSHA, "external_id": id, "name": j.spec.Name,
		"url": c.repoURL() + "/check-runs/" + id, "html_url": "https://github.com/" + c.repo.fullName() + "/actions/runs/" + strconv.FormatInt(r.id, 10) + "/job/" + id,
		"details_url": "https://github.com/" + c.repo.fullName() + "/actions/runs/" + strconv.FormatInt(r.id, 10) + "/job/" + id,
		"status":      j.spec.Status, "conclusion": conclusion, "started_at": ts(j.created), "completed_at": nilIfZeroTime(done, r.updated),
		"output": map[string]any{"title": nilIfEmpty(j.spec.Title), "summary": nilIfEmpty(j.spec.Summary), "text": nilIfEmpty(j.spec.Text),
			"annotations_count": len(j.spec.Annotations), "annotations_url": c.repoURL() + "/check-runs/" + id + "/annotations"},
		"check_suite": map[string]any{"id": r.suiteID}, "app": c.actionsAppJSON(),
		"pull_requests": c.prRefsFor(r.headBranch, r.headSHA),
	}
}

// runsFor lists the runs on ref (a branch, tag or commit).
func (c *call) runsFor(ref string) ([]*ciRun, bool) {
	sha, ok := c.repo.resolveRef(ref)
	if !ok {
		c.invalid(fieldError{Resource: "Commit", Field: "ref", Code: "invalid", Message: "No commit found for SHA: " + ref})
		return nil, false
	}
	var out []*ciRun
	for _, r := range c.repo.ciRuns {
		if r.headSHA == sha {
			out = append(out, r)
		}
	}
	return out, true
}

// listCheckRunsForRef answers GET commits/{ref}/check-runs (latest
// attempt of each job; check_name and status filter).
func (s *Server) listCheckRunsForRef(c *call) {
	runs, ok := c.runsFor(c.r.PathValue("ref"))
	if !ok {
		return
	}
	q := c.r.URL.Query()
	var all []map[string]any
	for _, r := range runs {
		for _, j := range r.jobs {
			if n := q.Get("check_name"); n != "" && n != j.spec.Name {
				continue
			}
			if st := q.Get("status"); st != "" && st != j.spec.Status {
				continue
			}
			all = append(all, c.checkRunJSON(r, j))
		}
	}
	lo, hi := c.paginate(len(all))
	page := []any{}
	for _, m := range all[lo:hi] {
		page = append(page, m)
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(all), "check_runs": page})
}

// listCheckSuitesForRef answers GET commits/{ref}/check-suites.
func (s *Server) listCheckSuitesForRef(c *call) {
	runs, ok := c.runsFor(c.r.PathValue("ref"))
	if !ok {
		return
	}
	lo, hi := c.paginate(len(runs))
	page := []any{}
	for _, r := range runs[lo:hi] {
		page = append(page, c.checkSuiteJSON(r))
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(runs), "check_suites": page})
}

// listCheckRunAnnotations answers GET check-runs/{id}/annotations.
func (s *Server) listCheckRunAnnotations(c *call) {
	id, err := strconv.ParseInt(c.r.PathValue("check_run_id"), 10, 64)
	r, j := c.repo.ciJob(id)
	if err != nil || j == nil {
		c.notFound()
		return
	}
	anns := j.spec.Annotations
	lo, hi := c.paginate(len(anns))
	out := []any{}
	for _, a := range anns[lo:hi] {
		level := a.Level
		if level == "" {
			level = "failure"
		}
		out = append(out, map[string]any{"path": a.Path, "start_line": a.Line, "end_line": a.Line, "start_column": nil, "end_column": nil,
			"annotation_level": level, "title": a.Title, "message": a.Message, "raw_details": nil,
			"blob_href": "https://github.com/" + c.repo.fullName() + "/blob/" + r.headSHA + "/" + a.Path})
	}
	c.json(http.StatusOK, out)
}

func (c *call) workflowRunJSON(r *ciRun) map[string]any {
	id := strconv.FormatInt(r.id, 10)
	u := c.repoURL() + "/actions/runs/" + id
	return map[string]any{
		"id": r.id, "name": r.name, "node_id": nodeID("WFR", r.id), "check_suite_id": r.suiteID, "check_suite_node_id": nodeID("CS", r.suiteID),
		"head_branch": nilIfEmpty(r.headBranch), "head_sha": r.headSHA, "path": r.path, "run_number": r.number, "run_attempt": r.attempt,
		"display_title": r.name, "event": r.event, "status": r.status(), "conclusion": r.conclusion(), "workflow_id": 161335,
		"url": u, "html_url": "https://github.com/" + c.repo.fullName() + "/actions/runs/" + id,
		"pull_requests": c.prRefsFor(r.headBranch, r.headSHA), "created_at": ts(r.created), "updated_at": ts(r.updated),
		"run_started_at": ts(r.created), "jobs_url": u + "/jobs", "logs_url": u + "/logs", "check_suite_url": c.repoURL() + "/check-suites/" + strconv.FormatInt(r.suiteID, 10),
		"artifacts_url": u + "/artifacts", "cancel_url": u + "/cancel", "rerun_url": u + "/rerun", "workflow_url": c.repoURL() + "/actions/workflows/161335",
		"head_commit": c.headCommitJSON(r.headSHA), "repository": c.repoJSON(), "head_repository": c.repoJSON(),
	}
}

// listWorkflowRuns answers GET actions/runs (head_sha, branch, status
// and event filter).
func (s *Server) listWorkflowRuns(c *call) {
	q := c.r.URL.Query()
	var runs []*ciRun
	for i := len(c.repo.ciRuns) - 1; i >= 0; i-- { // newest first, as GitHub lists them
		r := c.repo.ciRuns[i]
		switch {
		case q.Get("head_sha") != "" && q.Get("head_sha") != r.headSHA,
			q.Get("branch") != "" && q.Get("branch") != r.headBranch,
			q.Get("event") != "" && q.Get("event") != r.event,
			q.Get("status") != "" && q.Get("status") != r.status() && q.Get("status") != r.conclusion():
			continue
		}
		runs = append(runs, r)
	}
	lo, hi := c.paginate(len(runs))
	page := []any{}
	for _, r := range runs[lo:hi] {
		page = append(page, c.workflowRunJSON(r))
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(runs), "workflow_runs": page})
}

func (c *call) jobJSON(r *ciRun, j *ciJob) map[string]any {
	id := strconv.FormatInt(j.id, 10)
	done := j.spec.Status == "completed"
	conclusion := any(nil)
	if done {
		conclusion = j.spec.Conclusion
	}
	steps := []any{}
	for i, st := range j.spec.Steps {
		steps = append(steps, map[string]any{"name": st.Name, "status": "completed", "conclusion": st.Conclusion, "number": i + 1,
			"started_at": ts(j.created), "completed_at": ts(r.updated)})
	}
	runner := map[string]any{"runner_id": nil, "runner_name": nil, "runner_group_id": nil, "runner_group_name": nil}
	if j.spec.RunnerName != "" {
		runner = map[string]any{"runner_id": 1, "runner_name": j.spec.RunnerName, "runner_group_id": 2, "runner_group_name": "GitHub Actions"}
	}
	m := map[string]any{
		"id": j.id, "run_id": r.id, "run_url": c.repoURL() + "/actions/runs/" + strconv.FormatInt(r.id, 10), "run_attempt": r.attempt,
		"node_id": nodeID("CR", j.id), "head_sha": r.headSHA, "url": c.repoURL() + "/actions/jobs/" + id,
		"html_url": "https://github.com/" + c.repo.fullName() + "/actions/runs/" + strconv.FormatInt(r.id, 10) + "/job/" + id,
		"status":   j.spec.Status, "conclusion": conclusion, "created_at": ts(j.created), "started_at": ts(j.created),
		"completed_at": nilIfZeroTime(done, r.updated), "name": j.spec.Name, "steps": steps,
		"check_run_url": c.repoURL() + "/check-runs/" + id, "labels": []any{"ubuntu-latest"},
		"workflow_name": r.name, "head_branch": nilIfEmpty(r.headBranch),
	}
	for k, v := range runner {
		m[k] = v
	}
	return m
}

// listRunJobs answers GET actions/runs/{run_id}/jobs.
func (s *Server) listRunJobs(c *call) {
	id, err := strconv.ParseInt(c.r.PathValue("run_id"), 10, 64)
	r := c.repo.ciRunByID(id)
	if err != nil || r == nil {
		c.notFound()
		return
	}
	lo, hi := c.paginate(len(r.jobs))
	page := []any{}
	for _, j := range r.jobs[lo:hi] {
		page = append(page, c.jobJSON(r, j))
	}
	c.json(http.StatusOK, map[string]any{"total_count": len(r.jobs), "jobs": page})
}

// logsPrefix is where the simulator serves job logs; GitHub redirects a
// log request to a short-lived download URL off the API.
const logsPrefix = "/_joblogs/"

// downloadJobLogs answers GET actions/jobs/{job_id}/logs as GitHub does:
// 302 to the plain-text log's download URL.
func (s *Server) downloadJobLogs(c *call) {
	id, err := strconv.ParseInt(c.r.PathValue("job_id"), 10, 64)
	if _, j := c.repo.ciJob(id); err != nil || j == nil {
		c.notFound()
		return
	}
	c.w.Header().Set("Location", "http://"+c.r.Host+logsPrefix+c.repo.fullName()+"/jobs/"+strconv.FormatInt(id, 10))
	c.w.WriteHeader(http.StatusFound)
}

// getJobLogText serves a job's log at its download URL.
func (s *Server) getJobLogText(c *call) {
	id, err := strconv.ParseInt(c.r.PathValue("job_id"), 10, 64)
	_, j := c.repo.ciJob(id)
	if err != nil || j == nil {
		c.notFound()
		return
	}
	c.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write([]byte(j.spec.Log))
}

// rerunFailedJobs answers POST actions/runs/{run_id}/rerun-failed-jobs:
// a new attempt in which every job that did not succeed is queued again.
func (s *Server) rerunFailedJobs(c *call) {
	id, err := strconv.ParseInt(c.r.PathValue("run_id"), 10, 64)
	r := c.repo.ciRunByID(id)
	if err != nil || r == nil {
		c.notFound()
		return
	}
	if r.status() != "completed" {
		c.message(http.StatusForbidden, "This workflow is already running")
		return
	}
	r.attempt++
	r.conclusionOverride = ""
	r.updated = c.now
	for _, j := range r.jobs {
		if c := j.spec.Conclusion; c != "success" && c != "skipped" {
			j.spec = CIJob{Name: j.spec.Name, Status: "queued"}
		}
	}
	c.json(http.StatusCreated, map[string]any{})
}

// WebhookPayloads names the entries of GitHub's x-webhooks description
// whose payload schemas the simulator's webhook payloads follow
// (WorkflowRunEvents); the OpenAPI conformance tests check them.
func WebhookPayloads() []string {
	return []string{"check-run-completed", "check-suite-completed", "workflow-run-completed"}
}

// WorkflowRunEvents returns the deliveries GitHub makes when run runID
// of repo completes: one check_run (completed) per job, check_suite
// (completed) and workflow_run (completed), in payload shapes of
// GitHub's (sender = github-actions[bot]'s owner, the repository's).
func (s *Server) WorkflowRunEvents(repo string, runID, installation int64) ([]WebhookEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(repo)
	if rp == nil {
		return nil, fmt.Errorf("githubsim: no repository %s", repo)
	}
	r := rp.ciRunByID(runID)
	if r == nil {
		return nil, fmt.Errorf("githubsim: %s has no workflow run %d", repo, runID)
	}
	c := &call{s: s, repo: rp, actor: rp.owner, now: s.now().UTC(), base: "https://api.github.com"}
	var out []WebhookEvent
	add := func(event string, key string, v map[string]any) error {
		m := map[string]any{"action": "completed", key: v, "repository": c.repoJSON(), "sender": c.userJSON(rp.owner)}
		if installation != 0 {
			m["installation"] = map[string]any{"id": installation, "node_id": nodeID("MDIz", installation)}
		}
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("githubsim: %s payload: %w", event, err)
		}
		out = append(out, WebhookEvent{Event: event, Action: "completed", Body: b})
		return nil
	}
	suite := c.checkSuiteJSON(r)
	for _, j := range r.jobs {
		if j.spec.Status != "completed" {
			continue
		}
		cr := c.checkRunJSON(r, j)
		cr["check_suite"] = suite
		if err := add("check_run", "check_run", cr); err != nil {
			return nil, err
		}
	}
	if r.status() != "completed" {
		return out, nil
	}
	if err := add("check_suite", "check_suite", suite); err != nil {
		return nil, err
	}
	wr := c.workflowRunJSON(r)
	wr["actor"], wr["triggering_actor"] = c.userJSON(rp.owner), c.userJSON(rp.owner)
	if err := add("workflow_run", "workflow_run", wr); err != nil {
		return nil, err
	}
	return out, nil
}
