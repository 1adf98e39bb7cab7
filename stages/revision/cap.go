package revision

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// One cap per pull request ([revision] max_cycles) bounds the revisions
// the model chooses to make, review and CI cycles together: a PR gets at
// most max_cycles follow-up commits of either kind, not max_cycles of
// each. Each kind keeps its own cycle numbers (its trailer, its reply
// markers and its escalation keys), so idempotency is unchanged; only the
// decision to start a new cycle adds the other kind's commits. Conflict
// resolutions (stages/restack) are counted apart: they merge a base that
// moved under the PR, work the model did not choose.

// comparer is what counting a pull request's revision commits reads.
type comparer interface {
	GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error)
	Compare(ctx context.Context, repo github.Repo, base, head string) (github.Comparison, error)
}

// revisions are the revision commits among a pull request's own commits.
type revisions struct {
	// review counts the commits with the review trailer.
	review int
	// ci counts the commits with the CI trailer and names the newest.
	ci ciCycle
}

// readRevisions reads the revision commits of pull request p up to head
// among its own commits: one compare of head against the base's head, so
// a person's pushes on top hide none. Only the bot's trailer format
// counts; a person's commit copying it could at worst bring the cap or an
// escalation nearer.
func readRevisions(ctx context.Context, gh comparer, repo github.Repo, p github.PullRequest, head string) (revisions, error) {
	base, err := gh.GetBranchHead(ctx, repo, p.Base)
	if err != nil {
		return revisions{}, fmt.Errorf("read head of %s: %w", p.Base, err)
	}
	cmp, err := gh.Compare(ctx, repo, base.SHA, head)
	if err != nil {
		return revisions{}, fmt.Errorf("list the revision commits of %s#%d: %w", repo, p.Number, err)
	}
	reviewWant := fmt.Sprintf("%spr=%d cycle=", trailer, p.Number)
	ciWant := fmt.Sprintf("%spr=%d cycle=", ciTrailer, p.Number)
	var out revisions
	newest := 0
	for _, c := range cmp.Commits {
		for _, l := range strings.Split(c.Message, "\n") {
			if strings.HasPrefix(l, reviewWant) {
				out.review++
				break
			}
			rest, ok := strings.CutPrefix(l, ciWant)
			if !ok {
				continue
			}
			fields := strings.Fields(rest)
			k := 0
			if len(fields) > 0 {
				k, _ = strconv.Atoi(fields[0])
			}
			out.ci.cycle++
			if k >= newest {
				newest, out.ci.commit, out.ci.failure = k, c.SHA, ""
				for _, f := range fields {
					if v, ok := strings.CutPrefix(f, "failure="); ok {
						out.ci.failure = v
					}
				}
			}
			break
		}
	}
	return out, nil
}

// capReason is why a cycle past the shared cap of limit escalates.
func capReason(limit int) string {
	return fmt.Sprintf("the cap of %d revision cycles for this pull request (review and CI together) is reached ([revision] max_cycles)", limit)
}
