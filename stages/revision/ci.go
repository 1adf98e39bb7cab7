package revision

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cifeedback"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/secrets"
)

// CIReader is what reading a commit's CI results takes.
type CIReader interface {
	ListCheckRuns(ctx context.Context, repo github.Repo, ref string) ([]github.CheckRun, error)
	ListCheckRunAnnotations(ctx context.Context, repo github.Repo, id int64) ([]github.Annotation, error)
	ListWorkflowRuns(ctx context.Context, repo github.Repo, headSHA string) ([]github.WorkflowRun, error)
	ListRunJobs(ctx context.Context, repo github.Repo, runID int64) ([]github.Job, error)
	JobLog(ctx context.Context, repo github.Repo, jobID int64) (string, error)
}

// CIGitHub is what a CI-feedback cycle uses.
type CIGitHub interface {
	CIReader
	Rerunner
	idem.GitAPI
	GetPull(ctx context.Context, repo github.Repo, number int) (github.PullRequest, error)
	Compare(ctx context.Context, repo github.Repo, base, head string) (github.Comparison, error)
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
}

// CIReviser revises CogWorks's own pull requests on CI failures
// (docs/commands.md "CI feedback"): the failing checks of the PR's head,
// summarised and redacted by package cifeedback, are the feedback of one
// code-generation attempt on the PR's branch, which ends in one
// follow-up commit. An infrastructure failure spends no cycle: its
// workflow runs are re-run once (ci_rerun.go) or it is reported; a cycle
// whose commit fails the same way again, a cycle past the cap, or one
// that changes nothing escalates in one comment on the PR saying what was
// tried.
//
// A cycle keeps no state of its own: its commit carries a trailer naming
// its PR, cycle and the failure it answered, read back from the PR's
// commits. A re-run after the commit finds the head moved (or its checks
// pending) and writes nothing; an escalation comment carries a marker and
// is written once.
type CIReviser struct {
	GitHub    CIGitHub
	Generator Generator
	// Bot is CogWorks's own login: only its PRs are revised.
	Bot string
	// MaxCycles caps the revision cycles per PR, CI and review cycles
	// together (config.Revision.Cycles(); 0 means the default).
	MaxCycles int
	// Redactor removes secrets from everything CI wrote before it
	// reaches a prompt or a comment (nil: token shapes only).
	Redactor *secrets.Redactor
	// FeedbackLimit bounds the feedback in bytes (0:
	// cifeedback.DefaultLimit).
	FeedbackLimit int
	// RerunInfrastructure re-runs, once, the failed jobs of a workflow
	// run that failed on the infrastructure ([revision]
	// rerun_infrastructure_failures); off, such a failure is reported.
	RerunInfrastructure bool
}

// ciTrailer is the commit trailer that names a CI revision commit.
const ciTrailer = "Cogworks-CI-Revision: "

// Cycle revises pr once if CI failed on the code at its head. failedHead,
// when set, is the commit the triggering event reported: a head that has
// moved since (a fix was pushed) makes the cycle do nothing.
func (r CIReviser) Cycle(ctx context.Context, repo github.Repo, pr int, failedHead string) (Outcome, error) {
	p, err := r.GitHub.GetPull(ctx, repo, pr)
	if err != nil {
		return Outcome{}, fmt.Errorf("read %s#%d: %w", repo, pr, err)
	}
	if !OwnOpen(p, r.Bot) {
		return Outcome{Action: Ignored, Reason: fmt.Sprintf("%s#%d is not an open pull request of CogWorks's", repo, pr)}, nil
	}
	head, err := r.GitHub.GetBranchHead(ctx, repo, p.Head)
	if err != nil {
		return Outcome{}, fmt.Errorf("read head of %s: %w", p.Head, err)
	}
	if failedHead != "" && failedHead != head.SHA {
		return Outcome{Action: Ignored, Reason: fmt.Sprintf("the head moved from %s to %s since CI failed", short(failedHead), short(head.SHA))}, nil
	}
	checks, err := ReadChecks(ctx, r.GitHub, repo, head.SHA)
	if err != nil {
		return Outcome{}, err
	}
	v := cifeedback.Classify(checks, r.Redactor)
	switch v.Kind {
	case cifeedback.Passed, cifeedback.Pending:
		return Outcome{Action: Ignored, Reason: fmt.Sprintf("CI at %s: %s", short(head.SHA), v.Kind)}, nil
	case cifeedback.Infra:
		return r.infrastructure(ctx, repo, pr, head.SHA, v)
	}
	sig := v.Signature()
	revs, err := readRevisions(ctx, r.GitHub, repo, p, head.SHA)
	if err != nil {
		return Outcome{}, err
	}
	last := revs.ci
	cycle := last.cycle + 1
	if last.cycle > 0 && last.failure == sig {
		return r.escalate(ctx, repo, pr, ciEscalation{Head: head.SHA, Tried: last.cycle, Verdict: v,
			Reason: fmt.Sprintf("CI fails the same way after the CI revision %s: the fix fixed nothing", short(last.commit))})
	}
	// The cap is shared with the PR's review revisions (cap.go).
	if limit := (config.Revision{MaxCycles: r.MaxCycles}).Cycles(); last.cycle+revs.review >= limit {
		return r.escalate(ctx, repo, pr, ciEscalation{Head: head.SHA, Tried: last.cycle, Reviews: revs.review, Verdict: v,
			Reason: capReason(limit)})
	}
	feedback := cifeedback.Feedback(pr, head.SHA, v, r.Redactor, r.FeedbackLimit)
	change, err := r.Generator.Revise(ctx, Request{Repo: repo, PR: pr, Branch: p.Head, Head: head.SHA, Cycle: cycle,
		Items: ciItems(v), Feedback: feedback})
	if err != nil {
		return Outcome{}, fmt.Errorf("revise %s#%d on CI (cycle %d): %w", repo, pr, cycle, err)
	}
	if len(change.Files) == 0 && len(change.Delete) == 0 {
		return r.escalate(ctx, repo, pr, ciEscalation{Head: head.SHA, Tried: last.cycle, Verdict: v, Reason: "the revision changed nothing"})
	}
	sha, changed, err := idem.WriteFiles(ctx, pinned{CIGitHub: r.GitHub, branch: p.Head, sha: head.SHA}, repo, idem.Commit{
		Branch: p.Head, From: p.Head, Files: change.Files, Delete: change.Delete,
		Message: ciCommitMessage(pr, cycle, head.SHA, sig, change.Summary, v),
	})
	if errors.Is(err, errHeadMoved) || errors.Is(err, github.ErrUnprocessable) {
		// Another run (another delivery of the same failure) or a person
		// pushed meanwhile: the fix answers a head that is gone.
		return Outcome{Action: Ignored, Reason: "the head moved during the cycle; nothing committed"}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("commit CI revision %d of %s#%d: %w", cycle, repo, pr, err)
	}
	if !changed {
		return r.escalate(ctx, repo, pr, ciEscalation{Head: head.SHA, Tried: last.cycle, Verdict: v, Reason: "the revision changed nothing"})
	}
	return Outcome{Action: Revised, Cycle: cycle, Commit: sha, Reason: "CI failed: " + failingNames(v)}, nil
}

// errHeadMoved: the branch is no longer at the commit whose failure the
// cycle answers.
var errHeadMoved = errors.New("the branch head moved during the cycle")

// pinned makes idem.WriteFiles build on the commit whose failure the
// cycle answers, never on a newer head: the ref update is then a
// fast-forward from that commit only, which GitHub refuses (422) once the
// branch moved, so two cycles on one failure commit once however they
// interleave, and a person's push in between is never overwritten.
type pinned struct {
	CIGitHub
	branch, sha string
}

func (p pinned) GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error) {
	c, err := p.CIGitHub.GetBranchHead(ctx, repo, branch)
	if err == nil && branch == p.branch && c.SHA != p.sha {
		return github.Commit{}, fmt.Errorf("%s is at %s, not %s: %w", branch, short(c.SHA), short(p.sha), errHeadMoved)
	}
	return c, err
}

// ciItems are the failing checks as feedback items (SourceCI): the
// check, its failing tests, and its first annotation's place. Feedback
// carries the whole summary.
func ciItems(v cifeedback.Verdict) []Item {
	items := make([]Item, 0, len(v.Failures))
	for _, f := range v.Failures {
		it := Item{Source: SourceCI, Text: f.Check}
		if len(f.Tests) > 0 {
			it.Text += ": " + strings.Join(f.Tests, ", ")
		}
		if len(f.Annotations) > 0 {
			it.Path, it.Line = f.Annotations[0].Path, f.Annotations[0].Line
		}
		items = append(items, it)
	}
	return items
}

// failingNames lists the failing checks.
func failingNames(v cifeedback.Verdict) string {
	names := make([]string, len(v.Failures))
	for i, f := range v.Failures {
		names[i] = f.Check
	}
	return strings.Join(names, ", ")
}

// ciCommitMessage records the cycle, the commit whose failure it answers
// and that failure's signature, so a later cycle can tell the same
// failure from a new one.
func ciCommitMessage(pr, cycle int, failed, sig, summary string, v cifeedback.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cogworks #%d: revision %d on CI failure\n\n", pr, cycle)
	if s := oneLine(summary); s != "" {
		b.WriteString(s + "\n\n")
	}
	fmt.Fprintf(&b, "Failing checks at %s: %s\n", short(failed), oneLine(failingNames(v)))
	fmt.Fprintf(&b, "\n%spr=%d cycle=%d failed=%s failure=%s\n", ciTrailer, pr, cycle, failed, sig)
	return b.String()
}

// ciCycle is what the PR's CI revision commits record: how many there
// are, and the newest's commit and failure (readRevisions).
type ciCycle struct {
	cycle           int
	commit, failure string
}

// ciEscalation is why a CI revision loop stops: at which failing head,
// after how many cycles, on what failure.
type ciEscalation struct {
	Head  string
	Tried int
	// Reviews are the PR's review revision commits, which share the cap.
	Reviews int
	Verdict cifeedback.Verdict
	Reason  string
}

// escalate writes, once per failing head, a comment on the PR saying why
// the loop stopped, what it tried, and what fails, and reports
// Escalated.
func (r CIReviser) escalate(ctx context.Context, repo github.Repo, pr int, e ciEscalation) (Outcome, error) {
	out := Outcome{Action: Escalated, Cycle: e.Tried, Reason: e.Reason}
	var b strings.Builder
	fmt.Fprintf(&b, "CI fails on %s and CogWorks stops revising this pull request: %s. A maintainer takes it from here.\n\n", short(e.Head), e.Reason)
	if e.Tried == 0 {
		b.WriteString("No CI revision was committed.\n\n")
	} else {
		fmt.Fprintf(&b, "Tried: %d CI revision cycle(s); the last is the branch's commit with the trailer `%spr=%d cycle=%d`.\n\n", e.Tried, ciTrailer, pr, e.Tried)
	}
	if e.Reviews > 0 {
		fmt.Fprintf(&b, "Review revisions on this pull request, which share the cap: %d.\n\n", e.Reviews)
	}
	b.WriteString("What fails:\n\n")
	for _, f := range e.Verdict.Failures {
		fmt.Fprintf(&b, "- %s", audit.Untrusted(oneLine(f.Check)))
		if len(f.Steps) > 0 {
			fmt.Fprintf(&b, "; steps: %s", audit.Untrusted(oneLine(strings.Join(f.Steps, ", "))))
		}
		if len(f.Tests) > 0 {
			fmt.Fprintf(&b, "; tests: %s", audit.Untrusted(oneLine(strings.Join(f.Tests, ", "))))
		}
		b.WriteString("\n")
	}
	if _, err := r.commentOnce(ctx, repo, pr, prComment{Key: escalationKey(pr, e.Head),
		Title: fmt.Sprintf("CI revision of #%d stopped", pr), Body: b.String()}); err != nil {
		return Outcome{}, fmt.Errorf("escalate CI revision of %s#%d: %w", repo, pr, err)
	}
	return out, nil
}
