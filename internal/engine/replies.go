package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// Anyone can comment on a public issue, so someone without write
// permission could make the bot write without limit by posting /cogworks
// commands (each costs a reply, two reactions, a lock and a status
// write), spending the installation's content-creation limit. Such a user
// gets at most one answer per issue per replyWindow; their other commands
// in that window are left unanswered and cost no write. CogWorks keeps no
// state of its own, so the window is read from GitHub: each reply's key
// names the comment it answers and that comment's author, and the reply's
// creation time is GitHub's. People with write permission are answered
// every time.

// replyWindow is the span within which a user without write permission
// gets one answer per issue.
const replyWindow = time.Hour

// answer is one of the bot's replies to a command comment.
type answer struct {
	comment int64
	at      time.Time
}

// answers returns the bot's replies to command comments, by the login
// they answer, read from the replies' keys.
func (s *stepper) answers(comments []github.Comment) map[string][]answer {
	prefix := audit.Key(fmt.Sprint(s.ref.Issue), "command") + "/"
	out := map[string][]answer{}
	for _, c := range comments {
		if c.User != s.d.BotLogin || !strings.Contains(c.Body, prefix) {
			continue
		}
		key, ok := audit.FindKey(c.Body)
		if !ok {
			continue
		}
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		id, login, ok := strings.Cut(rest, "/")
		n, err := strconv.ParseInt(id, 10, 64)
		if !ok || err != nil {
			continue // a reply from before replies named their user
		}
		out[login] = append(out[login], answer{comment: n, at: c.CreatedAt})
	}
	return out
}

// answeredRecently reports whether c's author got an answer to another
// comment that was created less than replyWindow before c, or after it.
// The test depends only on GitHub's timestamps, so a comment it mutes
// stays muted on every later step.
func answeredRecently(c github.Comment, answered map[string][]answer) bool {
	for _, a := range answered[audit.Key(c.User)] {
		if a.comment != c.ID && a.at.After(c.CreatedAt.Add(-replyWindow)) {
			return true
		}
	}
	return false
}

// muted reports whether command comment c goes unanswered: its author
// cannot write and was answered within the window. It reads the author's
// permission only when the window applies.
func (s *stepper) muted(ctx context.Context, c github.Comment, answered map[string][]answer) (bool, error) {
	if !answeredRecently(c, answered) {
		return false, nil
	}
	perm, err := s.permission(ctx, c.User)
	if err != nil {
		return false, err
	}
	return !pipeline.CanApprove(perm), nil
}

// permission returns user's permission on the repository, read once per
// run.
func (s *stepper) permission(ctx context.Context, user string) (string, error) {
	if p, ok := s.perms[user]; ok {
		return p, nil
	}
	p, err := s.d.GitHub.CollaboratorPermission(ctx, s.ref.Repo, user)
	if err != nil {
		return "", fmt.Errorf("read permission of %s on %s: %w", user, s.ref.Repo, err)
	}
	if s.perms == nil {
		s.perms = map[string]string{}
	}
	s.perms[user] = p
	return p, nil
}

// commandKey keys the bot's one reply to a command comment; the key names
// the comment's author, so that the reply window can be read back.
func commandKey(issue int, comment int64, user string) string {
	return audit.Key(fmt.Sprint(issue), "command", fmt.Sprint(comment), user)
}
