package factory

import (
	"fmt"
	"os"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/webhook"
	"github.com/cogworks/cogworks/pipeline"
)

// EventTarget is the work item a GitHub event payload points at.
type EventTarget struct {
	Repo  github.Repo
	Issue int
	// Known is the issue as the payload showed it (issues and
	// issue_comment events): the step takes its labels instead of reading
	// the issue.
	Known *github.Issue
	// CheckMerges is set for pull_request events, whose merge may pass a
	// gate.
	CheckMerges bool
	// CommentEvent is set for a new comment by a person that holds a
	// /cogworks command: the step then reads the comments even on an
	// issue without cogworks:run (a stopped pipeline).
	CommentEvent bool
	// RevisePR is set when the event asks for a revision of that PR on
	// review feedback (webhook.Payload.RevisionRequest); Issue is then
	// its work item, 0 when only GitHub can tell.
	RevisePR int
	// CIPR is set when a failed (or cancelled) check run, check suite or
	// workflow run asks for a CI revision of that PR (webhook.CIResult.CITrigger);
	// CIHead is the head that failed and Issue the PR's work item.
	CIPR   int
	CIHead string
	// Restack is set when a CogWorks PR was merged: the work item's PRs
	// stacked on it are retargeted and updated (engine.Restack) after
	// the step.
	Restack bool
	// Push is set for a push that moved the default branch: every work
	// item with an open CogWorks PR is woken (engine.WakeOpenItems); Issue
	// is then 0.
	Push bool
	// Ignore explains why the event concerns no work item ("" otherwise).
	Ignore string
}

// ReadEvent reads a GitHub event payload file (as in GITHUB_EVENT_PATH).
func ReadEvent(path string) (EventTarget, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return EventTarget{}, fmt.Errorf("read event %s: %w", path, err)
	}
	t, err := parseEvent(data)
	if err != nil {
		return EventTarget{}, fmt.Errorf("event %s: %w", path, err)
	}
	return t, nil
}

// parseEvent extracts the target work item from an issues, issue_comment
// or pull_request payload. An issue (or a comment on one) without the
// cogworks:run label in the payload is ignored, unless the event is a new
// comment holding a /cogworks command (a stopped pipeline has no label):
// the payload carries the issue's labels after the event, so this trigger
// check needs no GitHub request. A pull request targets the work item
// named by its cogworks/<N>/… head branch; other PRs are ignored. A push
// to the default branch targets every work item with an open CogWorks PR
// (Push); any other push is ignored, from the payload alone.
func parseEvent(data []byte) (EventTarget, error) {
	p, err := webhook.Parse(data)
	if err != nil {
		return EventTarget{}, err
	}
	if event := webhook.CIEventOf(data); event != "" {
		return ciTarget(p, event, data)
	}
	if push, ok, err := webhook.ParsePush(data); err != nil || ok {
		return EventTarget{Repo: p.Repo, Push: ok, Ignore: push.Ignored()}, err
	}
	if issue, pr, ignore := p.RevisionRequest(p.Event()); ignore == "" {
		return EventTarget{Repo: p.Repo, Issue: issue, RevisePR: pr}, nil
	}
	n, checkMerges, ignore, err := p.WorkItem()
	if err != nil {
		return EventTarget{}, err
	}
	t := EventTarget{Repo: p.Repo, Issue: n, CheckMerges: checkMerges, Ignore: ignore, Restack: ignore == "" && p.MergedCogWorksPR()}
	if p.Issue != nil {
		t.Known = p.Issue
		t.CommentEvent = p.CommandComment()
		t.Ignore = p.Untriggered()
	}
	return t, nil
}

// ciTarget reads a check_run, check_suite or workflow_run payload: a
// completed failure on a CogWorks PR's head asks for its CI revision. No
// sender filter applies (CI on the bot's own push is sent by the bot);
// the revision checks the PR and its head against GitHub.
func ciTarget(p webhook.Payload, event string, data []byte) (EventTarget, error) {
	c, err := webhook.ParseCI(event, data)
	if err != nil {
		return EventTarget{}, err
	}
	pr, head, ignore := c.CITrigger()
	if ignore != "" {
		return EventTarget{Repo: p.Repo, Ignore: ignore}, nil
	}
	n, _ := pipeline.WorkItemOfBranch(c.HeadBranch)
	return EventTarget{Repo: p.Repo, Issue: n, CIPR: pr, CIHead: head}, nil
}
