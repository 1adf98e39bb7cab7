package revision

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// GitHub is what a revision cycle uses.
type GitHub interface {
	Reader
	idem.GitAPI
	GetIssue(ctx context.Context, repo github.Repo, number int) (github.Issue, error)
	GetPull(ctx context.Context, repo github.Repo, number int) (github.PullRequest, error)
	GetCommit(ctx context.Context, repo github.Repo, sha string) (github.Commit, error)
	// Compare lists the PR's own commits, whose CI revisions share the
	// cap with its review revisions.
	Compare(ctx context.Context, repo github.Repo, base, head string) (github.Comparison, error)
	ReplyToReviewComment(ctx context.Context, repo github.Repo, number int, commentID int64, body string) (github.InlineComment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
	// EditPullBody sets the interface PR's body (its interface list)
	// before a revision's commit (Change.PullBody).
	EditPullBody(ctx context.Context, repo github.Repo, number int, body string) error
}

// Request is what a Generator revises: the PR's branch at Head, and the
// feedback of its attempt, as items (Items) and rendered (Render).
type Request struct {
	Repo    github.Repo
	PR      int
	Branch  string
	Head    string
	Cycle   int
	Threads []Thread
	// Items are the feedback the attempt answers; Feedback is them
	// rendered as untrusted data for the prompt.
	Items    []Item
	Feedback string
}

// Change is a Generator's answer: the files to write on the branch and,
// per thread, what changed or why nothing did.
type Change struct {
	Files   map[string]string
	Delete  []string
	Summary string
	// Notes are keyed by Thread.ID; a thread without one gets Summary.
	Notes map[int64]string
	// Reason, for a change of no files, says why nothing changed (the
	// attempt failed its checks, the document was already approved);
	// empty means the attempt itself changed nothing.
	Reason string
	// PullBody, when set and different, replaces the PR's body before
	// the commit (the interface PR's interface list). Setting it again on
	// a re-run is harmless, so it needs no key of its own.
	PullBody string
}

// Generator runs one code-generation attempt with review feedback; the
// code-generation stage implements it with its domain service and
// review passes, exactly as for any attempt.
type Generator interface {
	Revise(ctx context.Context, req Request) (Change, error)
}

// Action is what a cycle did.
type Action string

// Actions of a cycle.
const (
	// Ignored: nothing to act on (no pending thread from a writer or a
	// trusted bot, or not a PR of CogWorks's). No write was made.
	Ignored Action = "ignored"
	// Revised: one follow-up commit and one reply per thread.
	Revised Action = "revised"
	// Escalated: the cap was reached or the attempt changed nothing; each
	// thread got a reply saying why, and a maintainer must take over.
	Escalated Action = "escalated"
)

// Outcome is what a cycle reports for the status comment.
type Outcome struct {
	Action Action
	Cycle  int
	Commit string
	// Threads are the threads the cycle answered.
	Threads []int64
	Reason  string
}

// Reviser runs revision cycles.
type Reviser struct {
	GitHub    GitHub
	Generator Generator
	Trust     Trust
	// MaxCycles caps the revision cycles per PR, review and CI cycles
	// together (config.Revision.Cycles(); 0 means the default).
	MaxCycles int
}

// Cycle revises PR pr once if a writer's (or trusted bot's) review
// threads await an answer. It is idempotent: re-run after a crash at any
// write, it completes the same cycle without a second commit or reply.
func (r Reviser) Cycle(ctx context.Context, repo github.Repo, pr int) (Outcome, error) {
	p, err := r.GitHub.GetPull(ctx, repo, pr)
	if err != nil {
		return Outcome{}, fmt.Errorf("read %s#%d: %w", repo, pr, err)
	}
	if !answerable(p, r.Trust.Bot) {
		return Outcome{Action: Ignored, Reason: fmt.Sprintf("%s#%d is not an open pull request of CogWorks's", repo, pr)}, nil
	}
	st, err := collect(ctx, r.GitHub, repo, pr, r.Trust)
	if err != nil {
		return Outcome{}, err
	}
	if len(st.pending) == 0 {
		return Outcome{Action: Ignored, Reason: "no review thread of a writer or trusted bot awaits an answer"}, nil
	}
	cycle := st.lastCycle + 1
	ids := threadIDs(st.pending)
	if p.Merged {
		// A merged specification or interface PR: its text is approved
		// and its branch may be gone. Say so; change nothing.
		return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: st.pending, action: Escalated, reason: mergedReason(pr)})
	}
	head, err := r.GitHub.GetBranchHead(ctx, repo, p.Head)
	if err != nil {
		return Outcome{}, fmt.Errorf("read head of %s: %w", p.Head, err)
	}
	// A crash between the replies of the last cycle: its commit names
	// threads still unanswered; answer them in that cycle.
	if st.lastCycle > 0 {
		done, ok, err := r.committed(ctx, repo, head, pr, st.lastCycle)
		if err != nil {
			return Outcome{}, err
		}
		if owed := owedThreads(st.pending, done.threads); ok && len(owed) > 0 {
			return r.reply(ctx, repo, answer{pr: pr, cycle: st.lastCycle, threads: owed, rec: done, action: Revised})
		}
	}
	// A commit of this cycle already on the branch (a crash before its
	// replies): answer from what it recorded, without generating again.
	if done, ok, err := r.committed(ctx, repo, head, pr, cycle); err != nil {
		return Outcome{}, err
	} else if owed := owedThreads(st.pending, done.threads); ok && len(owed) > 0 {
		return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: owed, rec: done, action: Revised})
	}
	// The cap is shared with the PR's CI revisions (cap.go). A review
	// round counts once answered, committed or not (lastCycle, from the
	// replies), as before the cap was shared.
	revs, err := readRevisions(ctx, r.GitHub, repo, p, head.SHA)
	if err != nil {
		return Outcome{}, err
	}
	if limit := r.cap(); max(st.lastCycle, revs.review)+revs.ci.cycle >= limit {
		reason := capReason(limit) + "; a maintainer takes it from here"
		return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: st.pending, action: Escalated, reason: reason})
	}
	items := Items(st.pending)
	change, err := r.Generator.Revise(ctx, Request{Repo: repo, PR: pr, Branch: p.Head, Head: head.SHA, Cycle: cycle,
		Threads: st.pending, Items: items, Feedback: Render(pr, items)})
	if err != nil {
		return Outcome{}, fmt.Errorf("revise %s#%d (cycle %d): %w", repo, pr, cycle, err)
	}
	rec := recorded{summary: change.Summary, notes: map[int64]string{}}
	for _, id := range ids {
		rec.notes[id] = change.Notes[id]
	}
	if len(change.Files) == 0 && len(change.Delete) == 0 {
		reason := "the revision changed nothing"
		if change.Reason != "" {
			reason = oneLine(change.Reason)
		}
		return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: st.pending, rec: rec, action: Escalated, reason: reason})
	}
	if change.PullBody != "" && change.PullBody != p.Body {
		// Before the commit: a re-run after a crash between the two
		// generates again and sets the body again; once the commit is
		// on the branch the body already matches it.
		if err := r.GitHub.EditPullBody(ctx, repo, pr, change.PullBody); err != nil {
			return Outcome{}, fmt.Errorf("update the body of %s#%d for revision %d: %w", repo, pr, cycle, err)
		}
	}
	sha, changed, err := idem.WriteFiles(ctx, r.GitHub, repo, idem.Commit{
		Branch: p.Head, From: p.Head, Files: change.Files, Delete: change.Delete,
		Message: commitMessage(pr, cycle, rec, ids),
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("commit revision %d of %s#%d: %w", cycle, repo, pr, err)
	}
	if !changed {
		// The files are already as asked: the cycle fixed nothing.
		return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: st.pending, rec: rec, action: Escalated, reason: "the revision changed nothing"})
	}
	rec.commit = sha
	return r.reply(ctx, repo, answer{pr: pr, cycle: cycle, threads: st.pending, rec: rec, action: Revised})
}

// Pending reports whether PR pr is an open PR of CogWorks's with a
// writer's (or trusted bot's) review thread awaiting an answer, and
// otherwise why not. It only reads, so a caller can decide whether to take
// the work item's lock at all: a review by an outsider or another bot
// costs no write.
func (r Reviser) Pending(ctx context.Context, repo github.Repo, pr int) (bool, string, error) {
	p, err := r.GitHub.GetPull(ctx, repo, pr)
	if err != nil {
		return false, "", fmt.Errorf("read %s#%d: %w", repo, pr, err)
	}
	if !answerable(p, r.Trust.Bot) {
		return false, fmt.Sprintf("%s#%d is not an open pull request of CogWorks's", repo, pr), nil
	}
	st, err := collect(ctx, r.GitHub, repo, pr, r.Trust)
	if err != nil {
		return false, "", err
	}
	if len(st.pending) == 0 {
		return false, "no review thread of a writer or trusted bot awaits an answer", nil
	}
	return true, fmt.Sprintf("%d review thread(s) await an answer", len(st.pending)), nil
}

// Own reports whether bot opened p on a branch of its own (docs/trust.md):
// only such a PR is CogWorks's to revise or restack.
func Own(p github.PullRequest, bot string) bool {
	_, ours := pipeline.WorkItemOfBranch(p.Head)
	return ours && strings.EqualFold(p.User, bot)
}

// OwnOpen reports whether p is Own and still open: a review of, or CI on,
// anyone else's PR is no instruction.
func OwnOpen(p github.PullRequest, bot string) bool {
	return Own(p, bot) && p.State == "open" && !p.Merged
}

// answerable reports whether a review of p is CogWorks's to answer: an
// open PR of its own, or its own specification or interface PR once
// merged — there the answer says the document is approved and changes
// nothing, rather than leaving a writer's request unheard.
func answerable(p github.PullRequest, bot string) bool {
	return OwnOpen(p, bot) || (Own(p, bot) && p.Merged && designBranch(p.Head))
}

// designBranch reports whether head is a work item's specification or
// interface branch (cogworks/<N>/spec, cogworks/<N>/interfaces).
func designBranch(head string) bool {
	n, ok := pipeline.WorkItemOfBranch(head)
	return ok && (head == stagekit.SpecBranch(n) || head == stagekit.DesignBranch(n))
}

// mergedReason is the answer on a merged specification or interface PR.
func mergedReason(pr int) string {
	return fmt.Sprintf("pull request #%d is already merged, so its text is approved and this pull request is not changed; "+
		"edit the merged file on the default branch instead, and CogWorks pauses with the diff and re-plans once a writer approves it", pr)
}

func (r Reviser) cap() int {
	return config.Revision{MaxCycles: r.MaxCycles}.Cycles()
}

func threadIDs(ts []Thread) []int64 {
	ids := make([]int64, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}

// recorded is what a cycle's commit says, read back after a crash.
type recorded struct {
	commit, summary string
	notes           map[int64]string
	threads         []int64
}

// owedThreads are the pending threads a cycle's commit answered.
func owedThreads(pending []Thread, answered []int64) []Thread {
	var out []Thread
	for _, t := range pending {
		if slices.Contains(answered, t.ID) {
			out = append(out, t)
		}
	}
	return out
}

// answer is what a cycle answers: its threads, what its commit recorded
// (no commit: rec is empty) and the outcome with its reason.
type answer struct {
	pr, cycle int
	threads   []Thread
	rec       recorded
	action    Action
	reason    string
}

// reply answers each of a.threads once (a thread the bot already
// answered in this cycle is skipped by collect) and reports the outcome.
func (r Reviser) reply(ctx context.Context, repo github.Repo, a answer) (Outcome, error) {
	pr, cycle, rec, action, reason := a.pr, a.cycle, a.rec, a.action, a.reason
	out := Outcome{Action: action, Cycle: cycle, Commit: rec.commit, Reason: reason}
	for _, t := range a.threads {
		body := replyBody(t, rec, action, reason) + "\n\n" + audit.Marker(replyKey(pr, cycle, t.ID))
		if t.Conversation {
			// A /cogworks fix comment or a review's body has no thread:
			// the answer quotes nothing of it and names it by id.
			what := fmt.Sprintf("`/cogworks fix` (comment %d)", t.ID)
			if t.ReviewOnly {
				what = fmt.Sprintf("review %d", t.ReviewID)
			}
			body = fmt.Sprintf("Answer to %s: %s", what, body)
			if _, err := r.GitHub.CreateComment(ctx, repo, pr, body); err != nil {
				return Outcome{}, fmt.Errorf("answer %s of %s#%d: %w", what, repo, pr, err)
			}
		} else if _, err := r.GitHub.ReplyToReviewComment(ctx, repo, pr, t.ID, body); err != nil {
			return Outcome{}, fmt.Errorf("reply to review thread %d of %s#%d: %w", t.ID, repo, pr, err)
		}
		out.Threads = append(out.Threads, t.ID)
	}
	return out, nil
}

func replyBody(t Thread, rec recorded, action Action, reason string) string {
	note := rec.notes[t.ID]
	if note == "" {
		note = rec.summary
	}
	note = audit.Untrusted(strings.TrimSpace(note))
	switch {
	case action == Revised && note != "":
		return fmt.Sprintf("Revised in %s: %s", short(rec.commit), note)
	case action == Revised:
		return fmt.Sprintf("Revised in %s.", short(rec.commit))
	case note != "":
		return fmt.Sprintf("Not revised: %s. %s", reason, note)
	}
	return fmt.Sprintf("Not revised: %s.", reason)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// trailer is the commit trailer that names a revision commit.
const trailer = "Cogworks-Revision: "

// commitMessage records the cycle and the replies it owes, so a re-run
// after a crash answers from it without generating again.
func commitMessage(pr, cycle int, rec recorded, ids []int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cogworks #%d: revision %d on review feedback\n\n", pr, cycle)
	if s := oneLine(rec.summary); s != "" {
		b.WriteString(s + "\n\n")
	}
	for _, id := range ids {
		if n := oneLine(rec.notes[id]); n != "" {
			fmt.Fprintf(&b, "Thread %d: %s\n", id, n)
		}
	}
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = strconv.FormatInt(id, 10)
	}
	fmt.Fprintf(&b, "\n%spr=%d cycle=%d threads=%s\n", trailer, pr, cycle, strings.Join(strs, ","))
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// maxWalk bounds how far back the branch is searched for this cycle's
// commit (one read per commit): a human may have pushed a few commits on
// top of it since the crash, rarely more.
const maxWalk = 5

// committed finds the commit of cycle on the branch (first parents from
// head) and reads back what it recorded. Only the bot's own trailer
// format counts; a human commit copying it would at worst make the cycle
// reply without generating.
func (r Reviser) committed(ctx context.Context, repo github.Repo, head github.Commit, pr, cycle int) (recorded, bool, error) {
	want := fmt.Sprintf("%spr=%d cycle=%d threads=", trailer, pr, cycle)
	// The branch read carries no message: read the head commit itself.
	c, err := r.GitHub.GetCommit(ctx, repo, head.SHA)
	if err != nil {
		return recorded{}, false, fmt.Errorf("read commit %s: %w", head.SHA, err)
	}
	for range maxWalk {
		for _, l := range strings.Split(c.Message, "\n") {
			if ids, ok := strings.CutPrefix(l, want); ok {
				rec := parseMessage(c)
				for _, id := range strings.Split(ids, ",") {
					if n, err := strconv.ParseInt(id, 10, 64); err == nil {
						rec.threads = append(rec.threads, n)
					}
				}
				return rec, true, nil
			}
		}
		if len(c.Parents) == 0 {
			break
		}
		next, err := r.GitHub.GetCommit(ctx, repo, c.Parents[0])
		if errors.Is(err, github.ErrNotFound) {
			break
		}
		if err != nil {
			return recorded{}, false, fmt.Errorf("read commit %s: %w", c.Parents[0], err)
		}
		c = next
	}
	return recorded{}, false, nil
}

func parseMessage(c github.Commit) recorded {
	rec := recorded{commit: c.SHA, notes: map[int64]string{}}
	lines := strings.Split(c.Message, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "Thread "); ok {
			id, note, ok := strings.Cut(rest, ": ")
			if n, err := strconv.ParseInt(id, 10, 64); ok && err == nil {
				rec.notes[n] = note
			}
			continue
		}
		if i == 2 && l != "" && !strings.HasPrefix(l, trailer) {
			rec.summary = l
		}
	}
	return rec
}
