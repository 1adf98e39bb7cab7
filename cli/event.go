package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/cogworks/cogworks/commands"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

// EventTarget is the work item a GitHub event payload points at.
type EventTarget struct {
	Repo  github.Repo
	Issue int
	// CheckMerges is set for pull_request events, whose merge may pass a
	// gate.
	CheckMerges bool
	// CommentEvent is set for a new comment by a person that holds a
	// /cogworks command: the step then reads the comments even on an
	// issue without cogworks:run (a stopped pipeline).
	CommentEvent bool
	// Ignore explains why the event concerns no work item ("" otherwise).
	Ignore string
}

// eventPayload is the subset of the issues, issue_comment and pull_request
// webhook payloads CogWorks reads.
type eventPayload struct {
	Action string `json:"action"`
	Issue  *struct {
		Number int            `json:"number"`
		Labels []payloadLabel `json:"labels"`
		// PullRequest is set when the issue is a pull request (a comment on
		// a PR arrives as an issue_comment event).
		PullRequest *struct{} `json:"pull_request"`
	} `json:"issue"`
	// Comment is set for issue_comment events.
	Comment *struct {
		Body string `json:"body"`
		User struct {
			Type string `json:"type"`
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
}

// cogworksBranch matches branches CogWorks creates: cogworks/<N>/<what>.
var cogworksBranch = regexp.MustCompile(`^cogworks/(\d+)/`)

// ReadEvent reads a GitHub event payload file (as in GITHUB_EVENT_PATH).
func ReadEvent(path string) (EventTarget, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return EventTarget{}, fmt.Errorf("read event %s: %w", path, err)
	}
	t, err := ParseEvent(data)
	if err != nil {
		return EventTarget{}, fmt.Errorf("event %s: %w", path, err)
	}
	return t, nil
}

// ParseEvent extracts the target work item from an issues, issue_comment
// or pull_request payload. An issue (or a comment on one) without the
// cogworks:run label in the payload is ignored, unless the event is a new
// comment holding a /cogworks command (a stopped pipeline has no label): the payload carries the
// issue's labels after the event, so this trigger check needs no GitHub
// request. A pull request targets the work item named by its
// cogworks/<N>/… head branch; other PRs are ignored.
func ParseEvent(data []byte) (EventTarget, error) {
	var p eventPayload
	if err := json.Unmarshal(data, &p); err != nil {
		return EventTarget{}, fmt.Errorf("not a JSON GitHub event payload: %w", err)
	}
	if p.Repository == nil || p.Repository.FullName == "" {
		return EventTarget{}, fmt.Errorf("payload has no repository.full_name")
	}
	repo, err := github.ParseRepo(p.Repository.FullName)
	if err != nil {
		return EventTarget{}, fmt.Errorf("repository.full_name: %w", err)
	}
	t := EventTarget{Repo: repo}
	switch {
	case p.Issue != nil:
		if p.Issue.Number <= 0 {
			return EventTarget{}, fmt.Errorf("issue.number must be positive, got %d", p.Issue.Number)
		}
		t.Issue = p.Issue.Number
		t.CommentEvent = p.Issue.PullRequest == nil && p.Action == "created" && p.Comment != nil &&
			p.Comment.User.Type != "Bot" && len(commands.Parse(p.Comment.Body)) > 0
		if !hasLabel(p.Issue.Labels, pipeline.LabelRun) && !t.CommentEvent {
			kind := "issue"
			if p.Issue.PullRequest != nil {
				kind = "pull request"
			}
			t.Ignore = fmt.Sprintf("%s #%d has no %s label", kind, p.Issue.Number, pipeline.LabelRun)
		}
	case p.PullRequest != nil:
		m := cogworksBranch.FindStringSubmatch(p.PullRequest.Head.Ref)
		if m == nil {
			t.Ignore = fmt.Sprintf("pull request #%d (head %q) is not a CogWorks branch", p.PullRequest.Number, p.PullRequest.Head.Ref)
			return t, nil
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 {
			return EventTarget{}, fmt.Errorf("pull_request.head.ref %q: bad work item number", p.PullRequest.Head.Ref)
		}
		t.Issue, t.CheckMerges = n, true
	default:
		return EventTarget{}, fmt.Errorf("unsupported event: payload has neither issue nor pull_request (want an issues, issue_comment or pull_request event)")
	}
	return t, nil
}

// payloadLabel is a label as the issue payload lists it.
type payloadLabel struct {
	Name string `json:"name"`
}

func hasLabel(labels []payloadLabel, name string) bool {
	for _, l := range labels {
		if l.Name == name {
			return true
		}
	}
	return false
}
