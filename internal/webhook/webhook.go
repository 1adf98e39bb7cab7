// Package webhook reads the GitHub webhook payloads CogWorks acts on
// (issues, issue_comment, pull_request), whether they arrive as an
// Action's GITHUB_EVENT_PATH file or as a delivery to `cogworks serve`.
// It is pure: bytes in, typed values out.
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// Payload is the part of an event payload CogWorks reads.
type Payload struct {
	Action       string
	Repo         github.Repo
	Installation int64
	Sender       User
	// Issue is set for issues and issue_comment events: the issue as it
	// was after the event, labels included.
	Issue *github.Issue
	// Comment is set for issue_comment events.
	Comment *Comment
	// PullRequest is set for pull_request, pull_request_review and
	// pull_request_review_comment events.
	PullRequest *PullRequest
	// Review is set for pull_request_review events.
	Review *Review
}

// Review is a pull request review as the event carried it.
type Review struct {
	ID    int64
	State string // commented | changes_requested | approved (lower case in webhooks)
	Body  string
	User  User
}

// User is an event's sender or a comment's author.
type User struct {
	Login string
	Type  string // User | Bot | Organization
}

// Comment is an issue comment, or a pull request review comment, as the
// event carried it.
type Comment struct {
	ID   int64
	Body string
	User User
	// InReplyTo is set for a reply in a review thread.
	InReplyTo int64
}

// PullRequest is a pull request as the event carried it.
type PullRequest struct {
	Number  int
	HeadRef string
	// User is the PR's author.
	User string
	// Merged is set on a closed event of a merged pull request.
	Merged bool
}

// raw mirrors the JSON of the payloads.
type raw struct {
	Action string `json:"action"`
	Issue  *struct {
		ID     int64   `json:"id"`
		Number int     `json:"number"`
		Title  string  `json:"title"`
		Body   string  `json:"body"`
		State  string  `json:"state"`
		User   rawUser `json:"user"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
		// PullRequest is set when the issue is a pull request (a comment on
		// a PR arrives as an issue_comment event).
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	Comment *struct {
		ID        int64   `json:"id"`
		Body      string  `json:"body"`
		User      rawUser `json:"user"`
		InReplyTo int64   `json:"in_reply_to_id"`
	} `json:"comment"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			Ref string `json:"ref"`
		} `json:"head"`
		User   rawUser `json:"user"`
		Merged bool    `json:"merged"`
	} `json:"pull_request"`
	Review *struct {
		ID    int64   `json:"id"`
		State string  `json:"state"`
		Body  string  `json:"body"`
		User  rawUser `json:"user"`
	} `json:"review"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Sender *rawUser `json:"sender"`
}

type rawUser struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// Parse reads a payload. Errors name the field that is missing or wrong.
func Parse(data []byte) (Payload, error) {
	var r raw
	if err := json.Unmarshal(data, &r); err != nil {
		return Payload{}, fmt.Errorf("not a JSON GitHub event payload: %w", err)
	}
	if r.Repository == nil || r.Repository.FullName == "" {
		return Payload{}, fmt.Errorf("payload has no repository.full_name")
	}
	repo, err := github.ParseRepo(r.Repository.FullName)
	if err != nil {
		return Payload{}, fmt.Errorf("repository.full_name: %w", err)
	}
	p := Payload{Action: r.Action, Repo: repo}
	if r.Installation != nil {
		p.Installation = r.Installation.ID
	}
	if r.Sender != nil {
		p.Sender = User(*r.Sender)
	}
	if r.Issue != nil {
		if r.Issue.Number <= 0 {
			return Payload{}, fmt.Errorf("issue.number must be positive, got %d", r.Issue.Number)
		}
		is := &github.Issue{ID: r.Issue.ID, Number: r.Issue.Number, Title: r.Issue.Title, Body: r.Issue.Body,
			State: r.Issue.State, User: r.Issue.User.Login, IsPullRequest: r.Issue.PullRequest != nil, Labels: []string{}}
		for _, l := range r.Issue.Labels {
			is.Labels = append(is.Labels, l.Name)
		}
		p.Issue = is
	}
	if r.Comment != nil {
		p.Comment = &Comment{ID: r.Comment.ID, Body: r.Comment.Body, User: User(r.Comment.User), InReplyTo: r.Comment.InReplyTo}
	}
	if r.PullRequest != nil {
		p.PullRequest = &PullRequest{Number: r.PullRequest.Number, HeadRef: r.PullRequest.Head.Ref, User: r.PullRequest.User.Login,
			Merged: r.PullRequest.Merged}
	}
	if r.Review != nil {
		p.Review = &Review{ID: r.Review.ID, State: r.Review.State, Body: r.Review.Body, User: User(r.Review.User)}
	}
	return p, nil
}

// WorkItem returns the work item a payload concerns: the issue of an
// issues or issue_comment event, or the N of a pull request's
// cogworks/<N>/… head branch (checkMerges: its merge may pass a gate).
// ignore explains why a pull request concerns none.
func (p Payload) WorkItem() (n int, checkMerges bool, ignore string, err error) {
	switch {
	case p.Issue != nil:
		return p.Issue.Number, false, "", nil
	case p.PullRequest != nil:
		b, err := pipeline.ParseBranch(p.PullRequest.HeadRef)
		if errors.Is(err, pipeline.ErrNotBranch) {
			return 0, false, fmt.Sprintf("pull request #%d (head %q) is not a CogWorks branch", p.PullRequest.Number, p.PullRequest.HeadRef), nil
		}
		if err != nil {
			return 0, false, "", fmt.Errorf("pull_request.head.ref: %w", err)
		}
		return b.Item, true, "", nil
	}
	return 0, false, "", fmt.Errorf("payload has neither issue nor pull_request (want an issues, issue_comment or pull_request event)")
}

// CommandComment reports whether the event is a new comment by a person
// (not a bot) on an issue that holds a /cogworks command.
func (p Payload) CommandComment() bool {
	return p.Issue != nil && !p.Issue.IsPullRequest && p.Action == "created" && p.Comment != nil &&
		p.Comment.User.Type != "Bot" && len(commands.Parse(p.Comment.Body)) > 0
}

// Untriggered explains why an issues or issue_comment event can neither
// start nor advance a pipeline, and is "" when it may. A comment event may
// only when it is a new /cogworks command comment by a person: other
// comments are never pipeline state, so discussion on a work item costs
// no runner and no request. An issues event may when the issue carries
// cogworks:run. The payload holds the issue's labels after the event, so
// the check costs no GitHub request; a label added later comes with its
// own event. An issues event sent by a bot is untriggered: CogWorks's
// own label and issue writes echo back as events when it acts as a GitHub
// App (a workflow's GITHUB_TOKEN triggers none), and stepping on them
// would only read the state the run that wrote them left (serve ignores
// every bot's event the same way; the cron finds a cogworks:run a bot
// applied). Pull request events are never untriggered here.
func (p Payload) Untriggered() string {
	is := p.Issue
	if is == nil || p.CommandComment() {
		return ""
	}
	if p.Comment != nil {
		return fmt.Sprintf("comment %d on #%d is not a new /cogworks command by a person", p.Comment.ID, is.Number)
	}
	if p.Sender.Type == "Bot" {
		return fmt.Sprintf("issue #%d was changed by a bot (%s), not a person", is.Number, p.Sender.Login)
	}
	if is.HasLabel(pipeline.LabelRun) {
		return ""
	}
	kind := "issue"
	if is.IsPullRequest {
		kind = "pull request"
	}
	return fmt.Sprintf("%s #%d has no %s label", kind, is.Number, pipeline.LabelRun)
}

// MergedCogWorksPR reports whether the event is the merge of a pull
// request from a cogworks/ branch: the PRs stacked on it then need their
// base retargeted and updated (engine.Restack).
func (p Payload) MergedCogWorksPR() bool {
	return p.PullRequest != nil && p.Action == "closed" && p.PullRequest.Merged && ownBranch(p.PullRequest.HeadRef)
}

// ownBranch reports whether ref is a branch CogWorks creates
// (pipeline.Branch).
func ownBranch(ref string) bool {
	_, ok := pipeline.WorkItemOfBranch(ref)
	return ok
}
