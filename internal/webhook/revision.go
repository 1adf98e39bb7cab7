package webhook

import (
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/commands"
)

// RevisionRequest reports the pull request an event asks CogWorks to
// revise on review feedback, without a GitHub request and without knowing
// the bot's login: a submitted review that does not approve, a new inline
// comment that opens a thread, or a new `/cogworks fix` comment by a
// person on a pull request's conversation. issue is the work item of the
// PR's cogworks/<N>/ branch, 0 when the payload does not show it (a PR
// comment's payload has no branch). Who may instruct — write permission,
// [revision] trusted_bots, never the bot itself — is checked by the
// revision against GitHub before anything is written
// (engine.PRReviser.Pending; RevisionTrigger when the login is known).
func (p Payload) RevisionRequest(event string) (issue, pr int, ignore string) {
	switch event {
	case "pull_request_review", "pull_request_review_comment":
		if p.PullRequest == nil {
			return 0, 0, event + " payload has no pull_request"
		}
		switch {
		case event == "pull_request_review" && (p.Action != "submitted" || p.Review == nil):
			return 0, 0, fmt.Sprintf("%s %q starts no revision", event, p.Action)
		case event == "pull_request_review" && p.Review.State == "approved":
			return 0, 0, fmt.Sprintf("review %d approves: nothing to revise", p.Review.ID)
		case event == "pull_request_review_comment" && (p.Action != "created" || p.Comment == nil):
			return 0, 0, fmt.Sprintf("%s %q starts no revision", event, p.Action)
		case event == "pull_request_review_comment" && p.Comment.InReplyTo != 0:
			// A reply in a thread opens none; the bot's own replies echo
			// back as these.
			return 0, 0, fmt.Sprintf("review comment %d is a reply in a thread", p.Comment.ID)
		}
		n, _, ignore, err := p.WorkItem()
		if err != nil {
			return 0, 0, err.Error()
		}
		if ignore != "" {
			return 0, 0, ignore
		}
		return n, p.PullRequest.Number, ""
	case "issue_comment":
		if p.Issue == nil || !p.Issue.IsPullRequest || p.Action != "created" || p.Comment == nil || p.Comment.User.Type == "Bot" {
			return 0, 0, "not a new comment by a person on a pull request"
		}
		cmds := commands.Parse(p.Comment.Body)
		if !slices.ContainsFunc(cmds, func(c commands.Command) bool { return c.Name == commands.Fix }) {
			return 0, 0, fmt.Sprintf("comment %d holds no %s %s", p.Comment.ID, commands.Prefix, commands.Fix)
		}
		return 0, p.Issue.Number, ""
	}
	return 0, 0, fmt.Sprintf("event %q asks for no revision", event)
}

// Event names the event a payload came with, from its shape, for the
// Action, which reads the payload file alone: a review, a review comment
// (a comment with a pull request and no issue), an issue comment, a pull
// request or an issue.
func (p Payload) Event() string {
	switch {
	case p.Review != nil:
		return "pull_request_review"
	case p.Comment != nil && p.PullRequest != nil && p.Issue == nil:
		return "pull_request_review_comment"
	case p.Comment != nil:
		return "issue_comment"
	case p.PullRequest != nil:
		return "pull_request"
	}
	return "issues"
}
