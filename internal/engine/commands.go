package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// Comment commands (/cogworks approve|retry|stop|status|help) are read
// from the comments the step reads anyway: never an extra request when no
// command waits. Only people's comments count (anyone can comment on a
// public issue, so every command that changes the pipeline needs the same
// write permission as the labels), and only comments never edited, since
// an edit could turn an old comment into a new command. Each command acts
// once: the snapshot's commands_seen, the highest comment id handled, is
// written in the same status-comment write as the commands' effect, and
// the replies (keyed by the comment id) and reactions are idempotent, so a
// step that dies in between and runs again acts the same way once.

// maxCommandsPerComment bounds the work one comment can ask for.
const maxCommandsPerComment = 5

// pendingCommand is a comment whose commands were not handled yet.
type pendingCommand struct {
	comment  github.Comment
	commands []commands.Command
}

// commandState is what the step knows about comment commands.
type commandState struct {
	// pending are the comments with unhandled commands, oldest first.
	pending []pendingCommand
	// lift reports that cogworks:run was applied again after a stop.
	lift bool
	// handled reports that commands were handled: the snapshot changed
	// (commands_seen at least) and must be written.
	handled bool
	// rerun makes the label write apply cogworks:run again (a retry of a
	// stopped pipeline, whose stop removed it).
	rerun bool
	// answered are the bot's replies by the login they answer (see
	// replyWindow), including the replies of this step.
	answered map[string][]answer
}

// work reports whether the step must take the lock for comment commands
// or to lift a stop.
func (c commandState) work() bool { return len(c.pending) > 0 || c.lift }

// scanCommands notes the pending commands and whether a stop is lifted,
// from the comments just read. It reads the issue's events only for a
// stopped pipeline whose cogworks:run label is back.
func (s *stepper) scanCommands(ctx context.Context, o *wakeFacts, cs *commandState) error {
	*cs = commandState{}
	if !o.obs.HasSnapshot && !o.obs.Labels.Run {
		return nil // not a CogWorks pipeline: its comments are not for us
	}
	for _, c := range o.comments {
		if c.User == s.d.BotLogin || c.ID <= o.snap.CommandsSeen || !c.UpdatedAt.Equal(c.CreatedAt) || !commands.Mentions(c.Body) {
			continue
		}
		cmds := commands.Parse(c.Body)
		if len(cmds) == 0 {
			continue
		}
		if cs.answered == nil {
			cs.answered = s.answers(o.comments)
		}
		// A muted comment is not pending: it takes no lock and costs no
		// write, now or on any later step.
		if muted, err := s.muted(ctx, c, cs.answered); err != nil {
			return err
		} else if muted {
			continue
		}
		cs.pending = append(cs.pending, pendingCommand{comment: c, commands: cmds})
	}
	slices.SortFunc(cs.pending, func(a, b pendingCommand) int { return cmp.Compare(a.comment.ID, b.comment.ID) })
	stop := o.snap.Stopped
	if !o.obs.HasSnapshot || stop == nil || !o.obs.Labels.Run {
		return nil
	}
	events, err := s.events(ctx)
	if err != nil {
		return err
	}
	for _, e := range events {
		// Newer than the stop comment, by GitHub's own clock; the bot's
		// label writes never lift a stop.
		if e.Event == "labeled" && e.Label == pipeline.LabelRun && e.Actor != s.d.BotLogin && e.CreatedAt.After(stop.At) {
			cs.lift = true
		}
	}
	return nil
}

// liftStop resumes a stopped pipeline whose cogworks:run label was applied
// again. Call it under the lock before the label drift is computed: the
// label is then expected, not someone else's edit.
func (s *stepper) liftStop(o *wakeFacts, cs *commandState) {
	if cs.lift && o.snap.Stopped != nil {
		o.snap.Stopped = nil
		o.obs.Snapshot = o.snap
		cs.handled = true
	}
}

// applyCommands handles the pending commands under the lock, oldest
// first: it acknowledges each comment, checks the author's permission,
// applies the effect to the snapshot and the observation (so that the
// decision that follows sees it) and replies where there is something to
// say.
func (s *stepper) applyCommands(ctx context.Context, o *wakeFacts, cs *commandState) error {
	for _, p := range cs.pending {
		c := p.comment
		// An earlier comment of this step may have been its author's
		// answer for the window.
		if muted, err := s.muted(ctx, c, cs.answered); err != nil {
			return err
		} else if muted {
			o.snap.CommandsSeen = max(o.snap.CommandsSeen, c.ID)
			cs.handled = true
			continue
		}
		if err := s.react(ctx, c.ID, github.ReactionEyes); isNotFound(err) {
			// Deleted since the comments were read: a withdrawn command.
			o.snap.CommandsSeen = max(o.snap.CommandsSeen, c.ID)
			cs.handled = true
			continue
		} else if err != nil {
			return err
		}
		cmds := p.commands
		if len(cmds) > maxCommandsPerComment {
			cmds = cmds[:maxCommandsPerComment]
		}
		var replies []string
		ok := true
		for _, cmd := range cmds {
			reply, done, err := s.command(ctx, o, cs, c, cmd)
			if err != nil {
				return err
			}
			ok = ok && done
			if reply != "" {
				replies = append(replies, reply)
			}
		}
		if len(replies) > 0 {
			key := commandKey(s.ref.Issue, c.ID, c.User)
			body := audit.Format(audit.Comment{Key: key, Title: "reply to " + audit.Untrusted(c.User),
				Body: strings.Join(replies, "\n\n")})
			reply, _, err := upsert(ctx, s, o, key, body)
			if err != nil {
				return err
			}
			if cs.answered == nil {
				cs.answered = map[string][]answer{}
			}
			at := reply.CreatedAt
			if at.IsZero() {
				at = s.d.now()
			}
			login := audit.Key(c.User)
			cs.answered[login] = append(cs.answered[login], answer{comment: c.ID, at: at})
		}
		result := github.ReactionPlusOne
		if !ok {
			result = github.ReactionConfused
		}
		if err := s.react(ctx, c.ID, result); err != nil && !isNotFound(err) {
			return err
		}
		o.snap.CommandsSeen = max(o.snap.CommandsSeen, c.ID)
		cs.handled = true
	}
	cs.pending = nil
	o.obs.Snapshot = o.snap
	return nil
}

// command applies one command of comment c; it returns the reply ("" for
// none) and whether the command did what it asked.
func (s *stepper) command(ctx context.Context, o *wakeFacts, cs *commandState, c github.Comment, cmd commands.Command) (string, bool, error) {
	who := "@" + audit.Untrusted(c.User)
	switch cmd.Name {
	case commands.Help:
		return who + ", " + commands.HelpText(), true, nil
	case commands.Status:
		return s.statusReply(o, who), true, nil
	case commands.Unknown:
		what := "a subcommand"
		if cmd.Word != "" {
			what = "`" + audit.Untrusted(strings.ReplaceAll(cmd.Word, "`", "'")) + "`"
		}
		return fmt.Sprintf("%s, `%s` needs %s I know.\n\n%s", who, commands.Prefix, what, commands.HelpText()), false, nil
	}
	perm, err := s.permission(ctx, c.User)
	if err != nil {
		return "", false, err
	}
	if !pipeline.CanApprove(perm) {
		if perm == "" {
			perm = "none"
		}
		return fmt.Sprintf("Thank you, %s. `%s %s` needs write, maintain or admin permission on %s, the same rule as the `cogworks:*` labels; your permission is `%s`, so nothing was changed. Someone with write access can run it.",
			who, commands.Prefix, cmd.Name, s.ref.Repo, audit.Untrusted(perm)), false, nil
	}
	snap := &o.snap
	stage := string(snap.Stage)
	switch cmd.Name {
	case commands.Fix:
		// Revisions answer review threads on a PR; the work item's issue
		// has none (the PR comment's event starts the revision).
		return fmt.Sprintf("%s, `%s %s` works on the conversation of one of CogWorks's pull requests: it revises that PR on its writers' inline review comments.",
			who, commands.Prefix, commands.Fix), false, nil
	case commands.Approve:
		switch {
		case snap.Stopped != nil:
			return fmt.Sprintf("%s, the pipeline is stopped; `%s retry` resumes it first.", who, commands.Prefix), false, nil
		case snap.Gate == nil && !o.obs.HasSnapshot:
			// A fresh item held for an untrusted trigger: this starts it.
			return fmt.Sprintf("%s, approved: `%s` was applied by someone without write permission; the pipeline starts now.", who, pipeline.LabelRun), true, nil
		case snap.Gate == nil:
			return fmt.Sprintf("%s, no gate is waiting for approval (stage `%s`).", who, stage), false, nil
		}
		if !o.obs.Approval.Approved {
			a := &o.obs.Approval
			a.Approved, a.By, a.Via, a.EventID, a.CommentID = true, c.User, pipeline.ViaCommand, 0, c.ID
		}
	case commands.Retry:
		switch {
		case snap.Stopped != nil:
			snap.Stopped = nil
			cs.rerun, o.obs.Labels.Run = true, true
		case snap.Stage == pipeline.StageFailed:
			o.obs.Labels.Retry = true
		default:
			return fmt.Sprintf("%s, there is nothing to retry: the pipeline is at stage `%s` and has neither failed nor stopped.", who, stage), false, nil
		}
	case commands.Stop:
		switch {
		case !o.obs.HasSnapshot:
			return fmt.Sprintf("%s, the pipeline has not taken its first step yet; remove `%s` to keep it from starting.", who, pipeline.LabelRun), false, nil
		case snap.Stage == pipeline.StageComplete || snap.Stage == pipeline.StageFailed:
			return fmt.Sprintf("%s, the pipeline already ended (`%s`); there is nothing to stop.", who, stage), false, nil
		case snap.Stopped == nil:
			snap.Stopped = &pipeline.StopRecord{By: c.User, At: c.CreatedAt, CommentID: c.ID}
			cs.rerun = false
		}
	}
	return "", true, nil
}

// statusReply links the status comment.
func (s *stepper) statusReply(o *wakeFacts, who string) string {
	status, ok := idem.FindComment(o.comments, s.d.BotLogin, statusKey(s.ref.Issue))
	if !ok || status.HTMLURL == "" {
		return fmt.Sprintf("%s, there is no status comment yet; it appears once the pipeline takes its first step.", who)
	}
	state := string(o.snap.Stage)
	switch {
	case o.snap.Stopped != nil:
		state += ", stopped"
	case o.snap.Gate != nil:
		state += ", waiting for approval"
	}
	return fmt.Sprintf("%s, the pipeline is at stage `%s`. Status: %s", who, state, status.HTMLURL)
}

// react adds a reaction to a comment; GitHub keeps one per content. The
// error wraps github.ErrNotFound when the comment was deleted.
func (s *stepper) react(ctx context.Context, comment int64, content string) error {
	if err := s.d.GitHub.CreateReaction(ctx, s.ref.Repo, comment, content); err != nil {
		return fmt.Errorf("react %s to comment %d on %s#%d: %w", content, comment, s.ref.Repo, s.ref.Issue, err)
	}
	return nil
}
