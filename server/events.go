package server

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/cogworks/cogworks/github"
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

func (j Job) key() string { return fmt.Sprintf("%s#%d", j.Repo, j.Issue) }

// payload is the subset of webhook payloads the server reads.
type payload struct {
	Action string `json:"action"`
	Issue  *struct {
		Number int `json:"number"`
	} `json:"issue"`
	Comment *struct {
		ID   int64  `json:"id"`
		Body string `json:"body"`
		User struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		} `json:"user"`
	} `json:"comment"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			Ref string `json:"ref"`
		} `json:"head"`
	} `json:"pull_request"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Sender *struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"sender"`
}

// cogworksBranch matches branches CogWorks creates: cogworks/<N>/<what>.
var cogworksBranch = regexp.MustCompile(`^cogworks/(\d+)/`)

// parseWork turns an issues, issue_comment or pull_request payload into a
// job; ignore explains why the event concerns no work item.
func parseWork(event string, data []byte) (job Job, ignore string, err error) {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return Job{}, "", fmt.Errorf("%s payload is not JSON: %w", event, err)
	}
	if p.Repository == nil || p.Repository.FullName == "" {
		return Job{}, "", fmt.Errorf("%s payload has no repository.full_name", event)
	}
	repo, err := github.ParseRepo(p.Repository.FullName)
	if err != nil {
		return Job{}, "", fmt.Errorf("%s payload repository.full_name: %w", event, err)
	}
	job = Job{Repo: repo}
	if p.Installation != nil {
		job.Installation = p.Installation.ID
	}
	if p.Sender != nil && p.Sender.Type == "Bot" {
		// CogWorks's own writes (and other bots') echo back as events;
		// stepping on them would only loop.
		return job, "sent by a bot (" + p.Sender.Login + ")", nil
	}
	switch event {
	case "issues", "issue_comment":
		if p.Issue == nil || p.Issue.Number <= 0 {
			return Job{}, "", fmt.Errorf("%s payload has no issue.number", event)
		}
		job.Issue = p.Issue.Number
		if event == "issue_comment" && p.Comment != nil {
			job.Comments = []CommentEvent{{ID: p.Comment.ID, Action: p.Action, Body: p.Comment.Body,
				User: p.Comment.User.Login, UserType: p.Comment.User.Type}}
		}
	case "pull_request":
		if p.PullRequest == nil {
			return Job{}, "", fmt.Errorf("pull_request payload has no pull_request")
		}
		m := cogworksBranch.FindStringSubmatch(p.PullRequest.Head.Ref)
		if m == nil {
			return job, fmt.Sprintf("pull request #%d is not on a CogWorks branch", p.PullRequest.Number), nil
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 {
			return Job{}, "", fmt.Errorf("pull_request.head.ref %q: bad work item number", p.PullRequest.Head.Ref)
		}
		job.Issue, job.CheckMerges = n, true
	default:
		return Job{}, "", fmt.Errorf("event %q carries no work item", event)
	}
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
