package revision

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/github"
)

// Thread is one review thread whose first comment is feedback CogWorks
// acts on.
type Thread struct {
	// ID is the thread's first comment, the one replies answer.
	ID       int64
	ReviewID int64
	Author   string
	// Why says why the author's words count ("write permission",
	// "trusted bot").
	Why      string
	Path     string
	Line     int
	DiffHunk string
	Body     string
	// ReviewBody is the body of the review that opened the thread.
	ReviewBody string
	// Conversation marks feedback on the PR's conversation rather than
	// an inline thread (a `/cogworks fix …` comment, or a review's body
	// with no inline comment): it is answered by a comment of its own,
	// and its words are the whole comment or body.
	Conversation bool
	// ReviewOnly marks a review whose body is its only feedback (state
	// CHANGES_REQUESTED or COMMENTED, no inline comment). Its ID is the
	// review's id negated: reviews and comments are numbered from
	// different sequences, and the sign keeps them apart in the commit
	// trailer and the reply markers.
	ReviewOnly bool
}

// Reader is what collecting feedback reads.
type Reader interface {
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	ListReviews(ctx context.Context, repo github.Repo, number int) ([]github.Review, error)
	ListReviewComments(ctx context.Context, repo github.Repo, number int) ([]github.InlineComment, error)
	CollaboratorPermission(ctx context.Context, repo github.Repo, user string) (string, error)
}

// Trust decides whose review comments are instructions.
type Trust struct {
	// Bot is CogWorks's own login: its comments are never feedback.
	Bot string
	// TrustedBots are the allow-listed bot logins ([revision] trusted_bots).
	TrustedBots []string
}

// isBot reports whether a comment's author is a bot account.
func isBot(login, userType string) bool {
	return userType == "Bot" || strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// writer reports whether permission lets its holder push.
func writer(permission string) bool {
	return permission == "admin" || permission == "maintain" || permission == "write"
}

// threadState is what the listed comments say about the PR's threads.
type threadState struct {
	pending []Thread
	// lastCycle is the highest cycle of the bot's own revision replies.
	lastCycle int
}

// replyKey is the marker key of the bot's reply to thread in cycle.
func replyKey(pr, cycle int, thread int64) string {
	return audit.Key("revision", strconv.Itoa(pr), strconv.Itoa(cycle), strconv.FormatInt(thread, 10))
}

// parseReplyKey reads a replyKey back.
func parseReplyKey(key string, pr int) (cycle int, thread int64, ok bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 4 || parts[0] != "revision" || parts[1] != strconv.Itoa(pr) {
		return 0, 0, false
	}
	c, err1 := strconv.Atoi(parts[2])
	t, err2 := strconv.ParseInt(parts[3], 10, 64)
	return c, t, err1 == nil && err2 == nil
}

// collect lists the PR's review threads and keeps those opened by a
// writer or a trusted bot that no revision reply of the bot answers yet,
// then the conversation's `/cogworks fix` comments and the reviews whose
// body is their only feedback, on the same terms. A reply counts only
// when the bot wrote it (a copied marker in anyone else's comment answers
// nothing).
func collect(ctx context.Context, gh Reader, repo github.Repo, pr int, trust Trust) (threadState, error) {
	comments, err := gh.ListReviewComments(ctx, repo, pr)
	if err != nil {
		return threadState{}, fmt.Errorf("read review comments of %s#%d: %w", repo, pr, err)
	}
	reviews, err := gh.ListReviews(ctx, repo, pr)
	if err != nil {
		return threadState{}, fmt.Errorf("read reviews of %s#%d: %w", repo, pr, err)
	}
	bodies := map[int64]string{}
	for _, r := range reviews {
		bodies[r.ID] = r.Body
	}
	var st threadState
	answered := map[int64]bool{}
	inline := map[int64]bool{} // reviews with an inline comment
	for _, c := range comments {
		inline[c.ReviewID] = true
		if !strings.EqualFold(c.User, trust.Bot) || c.InReplyTo == 0 {
			continue
		}
		key, ok := audit.FindKey(c.Body)
		if !ok {
			continue
		}
		if cycle, thread, ok := parseReplyKey(key, pr); ok && thread == c.InReplyTo {
			answered[thread] = true
			st.lastCycle = max(st.lastCycle, cycle)
		}
	}
	perms := map[string]string{}
	for _, c := range comments {
		if c.InReplyTo != 0 || answered[c.ID] || strings.EqualFold(c.User, trust.Bot) {
			continue
		}
		why, err := trust.why(ctx, gh, repo, c, perms)
		if err != nil {
			return threadState{}, err
		}
		if why == "" {
			continue
		}
		st.pending = append(st.pending, Thread{ID: c.ID, ReviewID: c.ReviewID, Author: c.User, Why: why,
			Path: c.Path, Line: c.Line, DiffHunk: c.DiffHunk, Body: c.Body, ReviewBody: bodies[c.ReviewID]})
	}
	conv, err := conversation(ctx, convRead{gh: gh, repo: repo, pr: pr, trust: trust, perms: perms}, &st)
	if err != nil {
		return threadState{}, err
	}
	st.pending = append(st.pending, conv.fixes...)
	for _, r := range reviews {
		if inline[r.ID] || !bodyFeedback(r) || conv.answered[-r.ID] || strings.EqualFold(r.User, trust.Bot) {
			continue
		}
		why, err := trust.why(ctx, gh, repo, github.InlineComment{User: r.User, UserType: r.UserType}, perms)
		if err != nil {
			return threadState{}, err
		}
		if why == "" {
			continue
		}
		st.pending = append(st.pending, Thread{ID: -r.ID, ReviewID: r.ID, Author: r.User, Why: why, Body: r.Body,
			Conversation: true, ReviewOnly: true})
	}
	slices.SortFunc(st.pending, func(a, b Thread) int { return cmp.Compare(a.ID, b.ID) })
	return st, nil
}

// bodyFeedback reports whether r's body is feedback: a review that asks
// for changes or comments, with words in its body (an approval's body is
// praise, not a request).
func bodyFeedback(r github.Review) bool {
	state := strings.ToUpper(r.State)
	return (state == "CHANGES_REQUESTED" || state == "COMMENTED") && strings.TrimSpace(r.Body) != ""
}

// conversed is what the PR's conversation holds for a revision: the
// `/cogworks fix` comments awaiting an answer, and the ids (comment ids,
// negated review ids) the bot's comments there already answer.
type conversed struct {
	fixes    []Thread
	answered map[int64]bool
}

// convRead is what reading a PR's conversation needs: the PR, the trust
// rules and the permissions already read (login → permission).
type convRead struct {
	gh    Reader
	repo  github.Repo
	pr    int
	trust Trust
	perms map[string]string
}

// conversation reads the PR conversation's `/cogworks fix …` comments of
// writers (never edited: an edit could turn an old comment into a new
// command) that no comment of the bot answers yet. Like a review thread,
// a comment counts as answered only when the bot's own comment carries
// its reply marker. GitHub numbers issue and review comments from one
// sequence, so their ids share the commit trailer's thread list.
func conversation(ctx context.Context, in convRead, st *threadState) (conversed, error) {
	gh, repo, pr, trust, perms := in.gh, in.repo, in.pr, in.trust, in.perms
	comments, err := gh.ListComments(ctx, repo, pr)
	if err != nil {
		return conversed{}, fmt.Errorf("read the conversation of %s#%d: %w", repo, pr, err)
	}
	out := conversed{answered: map[int64]bool{}}
	for _, c := range comments {
		if !strings.EqualFold(c.User, trust.Bot) {
			continue
		}
		if key, ok := audit.FindKey(c.Body); ok {
			if cycle, thread, ok := parseReplyKey(key, pr); ok {
				out.answered[thread] = true
				st.lastCycle = max(st.lastCycle, cycle)
			}
		}
	}
	for _, c := range comments {
		if out.answered[c.ID] || strings.EqualFold(c.User, trust.Bot) || !c.UpdatedAt.Equal(c.CreatedAt) ||
			!slices.ContainsFunc(commands.Parse(c.Body), func(cmd commands.Command) bool { return cmd.Name == commands.Fix }) {
			continue
		}
		why, err := trust.why(ctx, gh, repo, github.InlineComment{User: c.User}, perms)
		if err != nil {
			return conversed{}, err
		}
		if why == "" {
			continue
		}
		out.fixes = append(out.fixes, Thread{ID: c.ID, Author: c.User, Why: why, Body: c.Body, Conversation: true})
	}
	return out, nil
}

// why says why c's author is heeded, "" when they are not: a bot only
// when allow-listed, a person only with write permission.
func (t Trust) why(ctx context.Context, gh Reader, repo github.Repo, c github.InlineComment, perms map[string]string) (string, error) {
	if isBot(c.User, c.UserType) {
		if slices.ContainsFunc(t.TrustedBots, func(b string) bool { return strings.EqualFold(b, c.User) }) {
			return "trusted bot", nil
		}
		return "", nil
	}
	perm, seen := perms[strings.ToLower(c.User)]
	if !seen {
		var err error
		if perm, err = gh.CollaboratorPermission(ctx, repo, c.User); err != nil {
			return "", fmt.Errorf("read %s's permission on %s: %w", c.User, repo, err)
		}
		perms[strings.ToLower(c.User)] = perm
	}
	if !writer(perm) {
		return "", nil
	}
	return perm + " permission", nil
}
