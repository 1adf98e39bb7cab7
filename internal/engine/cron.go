package engine

import (
	"fmt"
	"strings"
	"time"
)

// RevisionQuery is the search the cron (process-all) runs for the bot's
// open pull requests updated since since: a review or review comment
// updates its PR, so every PR whose feedback a dropped event left
// unanswered is among the hits while it is in the window. Which of them
// await a revision is decided per PR by Revise (PRReviser.Pending: a
// writer's or trusted bot's thread without the bot's reply), which only
// reads when nothing does. GitHub names an app's account app/<slug> in
// search; the login is "<slug>[bot]".
func RevisionQuery(scope, bot string, since time.Time) string {
	author := bot
	if slug, ok := strings.CutSuffix(bot, "[bot]"); ok {
		author = "app/" + slug
	}
	return fmt.Sprintf("%s is:pr is:open author:%s updated:>=%s", scope, author, since.UTC().Format(time.RFC3339))
}
