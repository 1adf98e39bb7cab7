package revision

import (
	"context"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// CIStepGitHub is what the engine's CI-feedback step uses.
type CIStepGitHub interface {
	CIGitHub
	stagekit.IssueReader
}

// CIStep is the CI-feedback revision the engine runs on a work item's PR
// (engine.CIReviser): CIReviser's cycle with the code-generation attempt
// and the review passes as its Generator, the cap from the work item's
// configuration.
type CIStep struct {
	GitHub CIStepGitHub
	Code   Coder
	Review Reviewer
	// Redactor removes secrets from CI output (nil: token shapes only).
	Redactor *secrets.Redactor
}

func (s CIStep) reviser(in engine.StageInput, gen Generator) CIReviser {
	return CIReviser{GitHub: s.GitHub, Generator: gen, Bot: in.BotLogin, MaxCycles: in.Config.Revision.MaxCycles,
		Redactor: s.Redactor, RerunInfrastructure: in.Config.Revision.RerunsInfrastructure()}
}

// PendingCI implements engine.CIReviser with four reads, five when a
// check failed: the PR, its head, the head's check runs and workflow
// runs, and then the PR's comments. A completed check that failed, timed
// out or was cancelled, or a workflow run that could not start, makes it
// pending — unless the bot already answered that failure at that head
// with a comment (answeredAt): an escalation, or a report of these very
// failed runs. So a PR left red for a maintainer costs each cron sweep
// reads only, not a lock taken and released. Whether a failure is the
// code's or the infrastructure's (a re-run, or a report) the cycle
// decides from the logs, under the lock.
func (s CIStep) PendingCI(ctx context.Context, in engine.StageInput, pr int, failedHead string) (bool, string, error) {
	p, err := s.GitHub.GetPull(ctx, in.Repo, pr)
	if err != nil {
		return false, "", fmt.Errorf("read %s#%d: %w", in.Repo, pr, err)
	}
	if !OwnOpen(p, in.BotLogin) {
		return false, fmt.Sprintf("%s#%d is not an open pull request of CogWorks's", in.Repo, pr), nil
	}
	head, err := s.GitHub.GetBranchHead(ctx, in.Repo, p.Head)
	if err != nil {
		return false, "", fmt.Errorf("read head of %s: %w", p.Head, err)
	}
	if failedHead != "" && failedHead != head.SHA {
		return false, fmt.Sprintf("the head moved from %s to %s since CI failed", short(failedHead), short(head.SHA)), nil
	}
	checks, err := listChecks(ctx, s.GitHub, in.Repo, head.SHA)
	if err != nil {
		return false, "", err
	}
	if !slices.ContainsFunc(checks, triggers) {
		return false, fmt.Sprintf("no check failed at %s", short(head.SHA)), nil
	}
	comments, err := s.GitHub.ListComments(ctx, in.Repo, pr)
	if err != nil {
		return false, "", fmt.Errorf("read comments of %s#%d: %w", in.Repo, pr, err)
	}
	if why := answeredAt(comments, in.BotLogin, pr, head.SHA, checks); why != "" {
		return false, why, nil
	}
	return true, "", nil
}

// ReviseCI implements engine.CIReviser. An infrastructure failure spends
// no cycle: its re-run or its report is recorded as such.
func (s CIStep) ReviseCI(ctx context.Context, in engine.StageInput, pr int, failedHead string) (engine.RevisionOutcome, error) {
	var decided []pipeline.Change
	gen := Attempt{Code: s.Code, Review: s.Review, Issues: s.GitHub, In: in, Decided: &decided}
	out, err := s.reviser(in, gen).Cycle(ctx, in.Repo, pr, failedHead)
	if err != nil {
		return engine.RevisionOutcome{}, err
	}
	action := pipeline.RevisionAction(out.Action)
	return engine.RevisionOutcome{Action: action, Cycle: out.Cycle, Commit: out.Commit, Reason: out.Reason, CI: true, Changes: decided}, nil
}
