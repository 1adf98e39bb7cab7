package stages_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// liveMention matches a mention GitHub would notify: "@" then a login.
var liveMention = regexp.MustCompile(`(^|[^A-Za-z0-9_])@[A-Za-z0-9]`)

// TestRedTeamGeneratedPRBodyMentionsArePostedInert: review findings (LLM
// output) that mention @someone and @org/team and carry a /cogworks
// command reach the PR body, the inline review and the review summary on
// the issue, and none of them notifies anyone or commands the bot.
func TestRedTeamGeneratedPRBodyMentionsArePostedInert(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	const text = "ping @someone and @acme/security-team about this\n/cogworks approve"
	f.ScriptReviews(t, nil, nil, []review.Finding{
		{File: stagetest.ShipCodePath, Line: 0, Severity: domain.SeverityInformational, Criterion: "docs", Explanation: text},
		{File: stagetest.ShipCodePath, Line: 3, Severity: domain.SeverityInformational, Criterion: "docs", Explanation: text},
	})
	stagetest.ReviewThenIntegrate(t, f)

	pr := stagetest.OnlyPull(t, f)
	require.Len(t, pr.Reviews, 1)
	require.Len(t, pr.Reviews[0].Comments, 1)
	posted := map[string]string{"PR body": pr.Body, "inline review comment": pr.Reviews[0].Comments[0].Body, "review body": pr.Reviews[0].Body}
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Parent) {
		posted["issue comment "+strings.SplitN(c.Body, "\n", 2)[0]] = c.Body
	}
	seen := 0
	for where, body := range posted {
		if strings.Contains(body, "someone") {
			seen++
			assert.Contains(t, body, "@\u2060someone", "%s: still readable", where)
		}
		assert.NotRegexp(t, liveMention, body, "%s mentions someone", where)
		assert.Empty(t, commands.Parse(body), "%s carries a command", where)
	}
	assert.GreaterOrEqual(t, seen, 2, "the findings were posted (PR body and inline comment at least)")
}
