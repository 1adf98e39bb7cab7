package webhook

import (
	"fmt"
	"slices"
	"strings"
)

// RevisionTrigger reports the pull request whose review feedback a
// pull_request_review (submitted) or pull_request_review_comment
// (created) event asks CogWorks to revise (stages/revision), and
// otherwise why not, without a GitHub request: only the bot's own PRs on
// cogworks/ branches are revised, and a bot's words (CogWorks's own
// replies echo back as events) only when trustedBots allow-lists it.
// Whether a person may instruct — write permission — the revision checks
// itself against GitHub, since a payload cannot prove it.
func (p Payload) RevisionTrigger(event, bot string, trustedBots []string) (pr int, ignore string) {
	if p.PullRequest == nil {
		return 0, event + " payload has no pull_request"
	}
	var author User
	switch {
	case event == "pull_request_review" && p.Action == "submitted" && p.Review != nil:
		if strings.EqualFold(p.Review.State, "approved") {
			return 0, fmt.Sprintf("review %d approves: nothing to revise", p.Review.ID)
		}
		author = p.Review.User
	case event == "pull_request_review_comment" && p.Action == "created" && p.Comment != nil:
		author = p.Comment.User
	default:
		return 0, fmt.Sprintf("%s %q starts no revision", event, p.Action)
	}
	if !strings.EqualFold(p.PullRequest.User, bot) || !ownBranch(p.PullRequest.HeadRef) {
		return 0, fmt.Sprintf("pull request #%d is not CogWorks's (author %s, head %q)", p.PullRequest.Number, p.PullRequest.User, p.PullRequest.HeadRef)
	}
	if strings.EqualFold(author.Login, bot) {
		return 0, "written by CogWorks itself"
	}
	if (author.Type == "Bot" || strings.HasSuffix(author.Login, "[bot]")) &&
		!slices.ContainsFunc(trustedBots, func(b string) bool { return strings.EqualFold(b, author.Login) }) {
		return 0, fmt.Sprintf("written by the bot %s, which [revision] trusted_bots does not list", author.Login)
	}
	return p.PullRequest.Number, ""
}
