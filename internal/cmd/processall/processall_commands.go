package processall

import (
	"fmt"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// A /cogworks command is handled by the step its comment's event starts.
// When that run never happens (a dropped Actions run, a refused webhook
// delivery, an outage) the cron must find the command itself, and the
// label search cannot see two kinds of pipelines a command matters most
// on: a stopped one (`/cogworks stop` removed cogworks:run, and only
// `/cogworks retry` resumes it) and a failed one (found, but skipped
// unless cogworks:retry is on it, so a `/cogworks retry` comment would
// wait forever).
//
// Whether a command is pending (newer than the snapshot's commands_seen,
// from a writer, not muted) is decided by the step itself from the
// comments it reads anyway; the cron only hands it the candidates. Search
// cannot tell "unanswered command" apart, so the candidates are the
// pipelines of those two kinds that someone touched in the last
// --command-window (a new comment updates the issue): stopped ones from
// one more search per run, failed ones from the label search's own hits.
// A candidate with nothing pending costs its step's reads and writes
// nothing. A command older than the window waits for the next activity on
// its issue, which brings it back into the window.

// defaultCommandWindow is how far back process-all looks for /cogworks
// commands on stopped and failed pipelines: a cron every 30 minutes has
// 48 chances to answer a command in it.
const defaultCommandWindow = 24 * time.Hour

// commandQuery searches the open issues in scope without cogworks:run,
// not complete, whose comments mention cogworks (a /cogworks command
// does) and which were updated since since: the stopped pipelines that
// may hold a command. Hits without a stage label are no pipeline and are
// dropped by selectWork.
func commandQuery(scope string, since time.Time) string {
	return fmt.Sprintf("%s is:issue is:open -label:%q -label:%q cogworks in:comments updated:>=%s",
		scope, pipeline.LabelRun, pipeline.StageLabel(pipeline.StageComplete), since.UTC().Format(time.RFC3339))
}

// hasStageLabel reports whether the issue carries a cogworks:stage:*
// label: a pipeline that took its first step.
func hasStageLabel(is github.Issue) bool {
	for _, l := range is.Labels {
		if strings.HasPrefix(l, pipeline.LabelStagePrefix) {
			return true
		}
	}
	return false
}

// mayHoldCommand reports whether a search hit is stepped for a /cogworks
// command it may hold: a stopped or failed pipeline updated since since
// (zero since: never).
func mayHoldCommand(is github.Issue, since time.Time) bool {
	return !since.IsZero() && hasStageLabel(is) && !is.UpdatedAt.Before(since)
}
