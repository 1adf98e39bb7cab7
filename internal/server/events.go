package server

import (
	"fmt"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/webhook"
	"github.com/cogworks/cogworks/pipeline"
)

// Job is one work item to step, with what the triggering event said.
type Job struct {
	Installation int64
	Repo         github.Repo
	Issue        int
	// CheckMerges is set for pull_request events, whose merge may pass a gate.
	CheckMerges bool
	// Comments are the issue_comment events (created) coalesced into this
	// job, oldest first, for comment commands.
	Comments []CommentEvent
	// Revise are the work item's PRs whose review feedback (a review, an
	// inline comment, /cogworks fix) asks for a revision (engine.Revise).
	// A /cogworks fix comment's payload names no branch: its job has
	// Issue 0 and the revision finds the item from the PR.
	Revise []int
	// Restack is set when a CogWorks PR of the item was merged: its
	// other PRs are retargeted and updated (engine.Restack).
	Restack bool
	// CI are the work item's PRs whose failed CI asks for a revision
	// (engine.ReviseCI), with the head that failed.
	CI []CIFailure
	// RevisionOnly: every delivery merged into the job asked only for
	// revisions, so the item is not stepped.
	RevisionOnly bool
	// Push is set for a push that moved the default branch: the job has
	// Issue 0 and wakes every work item with an open CogWorks PR
	// (engine.WakeOpenItems), which the runner lists when it runs.
	Push bool
}

// CIFailure is a PR whose check run, check suite or workflow run failed
// at Head (webhook.CIResult.CITrigger).
type CIFailure struct {
	PR   int
	Head string
}

// CommentEvent is an issue comment as the webhook delivered it.
type CommentEvent struct {
	ID     int64
	Action string // created | edited | deleted
	Body   string
	User   string
	// UserType is "User" or "Bot".
	UserType string
}

func (j Job) key() string {
	if j.Push {
		return fmt.Sprintf("%s@push", j.Repo)
	}
	return fmt.Sprintf("%s#%d", j.Repo, j.Issue)
}

// pushItem is the Issue of a push job's key: a repository's wake-up is
// one queue entry, apart from any work item's (and from a /cogworks fix
// job's, whose Issue is 0 until the PR names it).
const pushItem = -1

// itemKey is the work item the job steps.
func (j Job) itemKey() itemKey {
	if j.Push {
		return itemKey{Installation: j.Installation, Repo: j.Repo, Issue: pushItem}
	}
	return itemKey{Installation: j.Installation, Repo: j.Repo, Issue: j.Issue}
}

// parseWork turns an issues, issue_comment or pull_request payload into a
// job; ignore explains why the event concerns no work item.
func parseWork(event string, data []byte) (job Job, ignore string, err error) {
	switch event {
	case "issues", "issue_comment", "pull_request", "pull_request_review", "pull_request_review_comment":
	case "check_run", "check_suite", "workflow_run":
		return parseCI(event, data)
	case "push":
		return parsePush(data)
	default:
		return Job{}, "", fmt.Errorf("event %q carries no work item", event)
	}
	p, err := webhook.Parse(data)
	if err != nil {
		return Job{}, "", fmt.Errorf("%s payload: %w", event, err)
	}
	job = Job{Repo: p.Repo, Installation: p.Installation}
	if event == "pull_request_review" || event == "pull_request_review_comment" || (event == "issue_comment" && p.Issue != nil && p.Issue.IsPullRequest) {
		// Only review feedback on a CogWorks PR is work here; the
		// revision checks the author against GitHub before any write.
		issue, pr, ignore := p.RevisionRequest(event)
		if ignore != "" {
			return job, ignore, nil
		}
		job.Issue, job.Revise, job.RevisionOnly = issue, []int{pr}, true
		return job, "", nil
	}
	if p.Sender.Type == "Bot" {
		// CogWorks's own writes (and other bots') echo back as events;
		// stepping on them would only loop.
		return job, "sent by a bot (" + p.Sender.Login + ")", nil
	}
	if event == "pull_request" && p.PullRequest == nil {
		return Job{}, "", fmt.Errorf("pull_request payload has no pull_request")
	}
	if event != "pull_request" && p.Issue == nil {
		return Job{}, "", fmt.Errorf("%s payload has no issue.number", event)
	}
	n, checkMerges, ignore, err := p.WorkItem()
	if err != nil || ignore != "" {
		return job, ignore, err
	}
	if ignore := p.Untriggered(); ignore != "" {
		// Most issue events in an installed repository concern no
		// pipeline; this answers them without a GitHub request, as the
		// Action does.
		return job, ignore, nil
	}
	job.Issue, job.CheckMerges, job.Restack = n, checkMerges, p.MergedCogWorksPR()
	if event == "issue_comment" && p.Comment != nil {
		job.Comments = []CommentEvent{{ID: p.Comment.ID, Action: p.Action, Body: p.Comment.Body,
			User: p.Comment.User.Login, UserType: p.Comment.User.Type}}
	}
	return job, "", nil
}

// parseCI turns a completed check run, check suite or workflow run that
// failed or was cancelled on a CogWorks PR's head into a CI revision job
// (a code failure's revision, or an infrastructure failure's re-run). The bot-sender
// filter does not apply: CI on the bot's own pushes is sent by the bot,
// and the revision itself checks against GitHub that the PR is the bot's
// and the head still the one that failed.
func parseCI(event string, data []byte) (Job, string, error) {
	p, err := webhook.Parse(data)
	if err != nil {
		return Job{}, "", fmt.Errorf("%s payload: %w", event, err)
	}
	c, err := webhook.ParseCI(event, data)
	if err != nil {
		return Job{}, "", err
	}
	job := Job{Repo: p.Repo, Installation: p.Installation}
	pr, head, ignore := c.CITrigger()
	if ignore != "" {
		return job, ignore, nil
	}
	n, _ := pipeline.WorkItemOfBranch(c.HeadBranch)
	job.Issue, job.CI, job.RevisionOnly = n, []CIFailure{{PR: pr, Head: head}}, true
	return job, "", nil
}

// parsePush turns a push that moved the default branch into a job that
// wakes the repository's open work items. Every other push is ignored
// from the payload alone: no GitHub request, no queue slot. No sender
// filter applies: a bot (a merge queue, a release tool) may move the
// default branch too, and CogWorks itself never pushes to it.
func parsePush(data []byte) (Job, string, error) {
	p, err := webhook.Parse(data)
	if err != nil {
		return Job{}, "", fmt.Errorf("push payload: %w", err)
	}
	push, ok, err := webhook.ParsePush(data)
	if err != nil {
		return Job{}, "", fmt.Errorf("push payload: %w", err)
	}
	if !ok {
		return Job{}, "", fmt.Errorf("push payload has no ref and pusher")
	}
	job := Job{Repo: p.Repo, Installation: p.Installation}
	if ignore := push.Ignored(); ignore != "" {
		return job, ignore, nil
	}
	job.Push = true
	return job, "", nil
}

// installationEvent is the subset of an installation payload read.
type installationEvent struct {
	Action       string `json:"action"`
	Installation struct {
		ID      int64 `json:"id"`
		Account struct {
			Login string `json:"login"`
		} `json:"account"`
	} `json:"installation"`
}
