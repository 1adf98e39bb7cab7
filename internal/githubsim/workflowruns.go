package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

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
// (WorkflowRunEvents, PushEvent); the OpenAPI conformance tests check
// them.
func WebhookPayloads() []string {
	return []string{"check-run-completed", "check-suite-completed", "push", "workflow-run-completed"}
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
