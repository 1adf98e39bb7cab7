package cifeedback

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/secrets"
)

// Check is one check run (for a GitHub Actions job, the job: its check
// run has the job's id) as CI reported it.
type Check struct {
	ID   int64
	Name string
	// Status is queued | in_progress | completed (and GitHub's other
	// pending states); Conclusion is set once completed.
	Status, Conclusion string
	// RunConclusion is the workflow run's conclusion, when the check is
	// an Actions job (startup_failure: no job could start).
	RunConclusion string
	// Run is the Actions workflow run the check is a job of (zero for a
	// check run of another CI app).
	Run                  Run
	Title, Summary, Text string
	Annotations          []Annotation
	// Steps are an Actions job's steps; Started says a runner picked the
	// job up (GitHub names its runner).
	Steps   []Step
	Started bool
	// Log is the job's log (its end), when read.
	Log string
}

// Annotation is one line a check flagged.
type Annotation struct {
	Path                  string
	Line                  int
	Level, Title, Message string
}

// Step is one step of a job.
type Step struct{ Name, Conclusion string }

// Run names a GitHub Actions workflow run: its id, its workflow's name
// and which attempt of the run the check belongs to (1 for the first).
type Run struct {
	ID      int64
	Name    string
	Attempt int
}

// Kind is what a set of checks says about a commit.
type Kind string

// Kinds, in the order a Verdict prefers them.
const (
	// Code: at least one check failed on the code; a revision can fix it.
	Code Kind = "code"
	// Infra: checks failed, none on the code (cancelled, runner lost,
	// never started); a re-run, not a revision, is the remedy.
	Infra Kind = "infrastructure"
	// Pending: some check has not completed and none failed yet.
	Pending Kind = "pending"
	// Passed: every check completed without failing.
	Passed Kind = "passed"
)

// Verdict classifies one commit's checks.
type Verdict struct {
	Kind Kind
	// Failures are the code failures (Kind Code), in check order.
	Failures []Failure
	// Infra names each check that failed on the infrastructure and why.
	Infra []string
	// InfraRuns are the Actions workflow runs with a job that failed on
	// the infrastructure, once each in check order, with the run's
	// conclusion: what a re-run of the failed jobs could remedy. A check
	// run of another CI app is listed by its name with ID 0 (and its own
	// conclusion): nothing CogWorks can re-run.
	InfraRuns []InfraRun
	// Failed is FailureKey of the checks: which check runs (and workflow
	// runs that could not start) failed, whatever on.
	Failed string
}

// InfraRun is a workflow run with a job that failed on the
// infrastructure.
type InfraRun struct {
	Run
	// Conclusion is the run's (startup_failure: it had no job to re-run).
	Conclusion string
}

// Failure is one check that failed on the code.
type Failure struct {
	Check string
	// Steps are the names of the failing steps; Tests the failing tests
	// found in the log, annotations or output.
	Steps, Tests []string
	Annotations  []Annotation
	// Output is the check's own title and summary; Excerpt the log lines
	// around the errors. Neither is redacted yet (Feedback does it).
	Output, Excerpt string
}

// runnerLost are the messages GitHub (and its runners) write when the
// machine, not the code, failed: a job that ends with one of them says
// nothing about the code.
var runnerLost = []string{
	"The runner has received a shutdown signal",
	"lost communication with the server",
	"The hosted runner encountered an error while running your job",
	"The job was not acquired by Runner of type hosted even after multiple attempts",
	"The self-hosted runner lost communication",
	"Runner connection is lost",
}

// infraReason says why check c failed on the infrastructure, "" when it
// did not (it passed, is pending, or failed on the code).
func infraReason(c Check) string {
	switch c.Conclusion {
	case "cancelled":
		return "cancelled"
	case "stale":
		return "stale (GitHub gave up waiting for it)"
	case "startup_failure":
		return "the workflow could not start"
	case "action_required":
		return "waiting for a maintainer to approve the run"
	}
	if c.RunConclusion == "startup_failure" {
		return "the workflow could not start"
	}
	if c.Conclusion != "failure" && c.Conclusion != "timed_out" {
		return ""
	}
	ran := ranSteps(c.Steps)
	switch {
	case !c.Started && ran == 0:
		return "the job never started (no runner picked it up)"
	case c.Conclusion == "timed_out" && ran == 0:
		return "timed out before any step ran"
	}
	for _, msg := range runnerLost {
		if strings.Contains(c.Log, msg) || slices.ContainsFunc(c.Annotations, func(a Annotation) bool { return strings.Contains(a.Message, msg) }) {
			return "the runner failed: " + msg
		}
	}
	return ""
}

// ranSteps counts the steps that ran, beyond GitHub's own "Set up job"
// and "Complete job" bookkeeping.
func ranSteps(steps []Step) int {
	n := 0
	for _, s := range steps {
		if s.Name == "Set up job" || s.Name == "Complete job" || s.Conclusion == "skipped" || s.Conclusion == "" {
			continue
		}
		n++
	}
	return n
}

func failed(conclusion string) bool {
	switch conclusion {
	case "failure", "timed_out", "cancelled", "stale", "startup_failure", "action_required":
		return true
	}
	return false
}

// completed says c has its conclusion: its run could not start (and never
// will), or it completed.
func completed(c Check) bool {
	return c.Status == "completed" || c.RunConclusion == "startup_failure"
}

// HasFailed says check c completed failed, on the code or on the
// infrastructure: Classify reads exactly these.
func HasFailed(c Check) bool {
	return completed(c) && (failed(c.Conclusion) || c.RunConclusion == "startup_failure")
}

// FailureKey names the failed checks (HasFailed) themselves — each check
// run by its id, a workflow run that could not start (it has no check
// run) by its id and attempt — so a report of "these failures" can be
// told from a later failure on the same commit: a re-run's jobs are new
// check runs. "" when none failed.
func FailureKey(checks []Check) string {
	var ids []string
	for _, c := range checks {
		switch {
		case !HasFailed(c):
		case c.ID != 0:
			ids = append(ids, fmt.Sprintf("check:%d", c.ID))
		case c.Run.ID != 0:
			ids = append(ids, fmt.Sprintf("run:%d.%d", c.Run.ID, c.Run.Attempt))
		default:
			ids = append(ids, "name:"+c.Name)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	slices.Sort(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	return hex.EncodeToString(sum[:6])
}

// Classify reads a commit's checks: any code failure makes the verdict
// Code (the infrastructure failures beside it are noted); failures all
// of the infrastructure make it Infra; else Pending while any check
// runs, else Passed. Every text CI wrote passes red (nil: token shapes
// only) before it is read, so no cut made while summarising can split a
// secret out of the redactor's sight.
func Classify(checks []Check, red *secrets.Redactor) Verdict {
	v := Verdict{Failed: FailureKey(checks)}
	pending := false
	for _, c := range checks {
		c = redacted(c, red)
		if !completed(c) {
			pending = true
			continue
		}
		if !HasFailed(c) {
			continue
		}
		if why := infraReason(c); why != "" {
			v.Infra = append(v.Infra, fmt.Sprintf("%s: %s", c.Name, why))
			switch {
			case c.Run.ID == 0:
				v.InfraRuns = append(v.InfraRuns, InfraRun{Run: Run{Name: c.Name}, Conclusion: c.Conclusion})
			case !slices.ContainsFunc(v.InfraRuns, func(r InfraRun) bool { return r.ID == c.Run.ID }):
				v.InfraRuns = append(v.InfraRuns, InfraRun{Run: c.Run, Conclusion: c.RunConclusion})
			}
			continue
		}
		v.Failures = append(v.Failures, summarise(c))
	}
	switch {
	case len(v.Failures) > 0:
		v.Kind = Code
	case len(v.Infra) > 0:
		v.Kind = Infra
	case pending:
		v.Kind = Pending
	default:
		v.Kind = Passed
	}
	return v
}

// Signature names what failed — each failing check with its failing
// steps and tests — so that a revision can tell "the same failure again"
// (its fix fixed nothing) from a new one. Log text (timings, addresses)
// is left out: it differs between runs of the same failure.
func (v Verdict) Signature() string {
	var parts []string
	for _, f := range v.Failures {
		parts = append(parts, f.Check+"|"+strings.Join(f.Steps, ",")+"|"+strings.Join(f.Tests, ","))
	}
	slices.Sort(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:6])
}

// redacted returns c with every text CI wrote redacted.
func redacted(c Check, red *secrets.Redactor) Check {
	c.Name, c.Title, c.Summary, c.Text, c.Log = red.Redact(c.Name), red.Redact(c.Title), red.Redact(c.Summary), red.Redact(c.Text), red.Redact(c.Log)
	anns := make([]Annotation, len(c.Annotations))
	for i, a := range c.Annotations {
		a.Path, a.Title, a.Message = red.Redact(a.Path), red.Redact(a.Title), red.Redact(a.Message)
		anns[i] = a
	}
	c.Annotations = anns
	steps := make([]Step, len(c.Steps))
	for i, st := range c.Steps {
		st.Name = red.Redact(st.Name)
		steps[i] = st
	}
	c.Steps = steps
	return c
}

// summarise reads one failed check into a Failure.
func summarise(c Check) Failure {
	f := Failure{Check: c.Name, Annotations: c.Annotations}
	for _, s := range c.Steps {
		if s.Conclusion == "failure" || s.Conclusion == "timed_out" {
			f.Steps = append(f.Steps, s.Name)
		}
	}
	if out := strings.TrimSpace(strings.Join(nonEmpty(c.Title, c.Summary), "\n")); out != "" {
		f.Output = out
	}
	lines := logLines(c.Log)
	f.Tests = failingTests(append(append(lines, annotationLines(c.Annotations)...), strings.Split(c.Text, "\n")...))
	f.Excerpt = excerpt(lines)
	return f
}

func annotationLines(anns []Annotation) []string {
	out := make([]string, 0, len(anns))
	for _, a := range anns {
		out = append(out, a.Title, a.Message)
	}
	return out
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
