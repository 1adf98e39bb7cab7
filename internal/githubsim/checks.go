package githubsim

import (
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
