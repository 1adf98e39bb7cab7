package idem

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
)

// ErrNoIdentity reports that the bot's own login is unknown, so the
// comments and issues it wrote cannot be told from forgeries.
var ErrNoIdentity = errors.New("the bot's login is unknown: cannot tell its own comments from others")

// CommentAPI is what UpsertComment needs from GitHub.
type CommentAPI interface {
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
	EditComment(ctx context.Context, repo github.Repo, id int64, body string) (github.Comment, error)
}

// FindComment returns the first comment written by author that carries
// the key marker. Anyone who can comment on an issue can copy a marker, so
// only the bot's own comments count (docs/security.md); GitHub lists
// comments oldest first, so the first one the bot wrote wins.
func FindComment(comments []github.Comment, author, key string) (github.Comment, bool) {
	marker := audit.Marker(key)
	for _, c := range comments {
		if c.User == author && strings.Contains(c.Body, marker) {
			return c, true
		}
	}
	return github.Comment{}, false
}

// KeyedComment is the comment UpsertComment makes an issue hold.
type KeyedComment struct {
	// Issue is the issue's (or pull request's) number.
	Issue int
	// Key names the comment; Body must contain its marker (audit.Format
	// adds it).
	Key  string
	Body string
	// Listed is the issue's comment list as last read; nil has it listed.
	Listed []github.Comment
}

// UpsertComment makes the comment with c's key read c.Body: it creates it
// when absent, edits it in place when different, and sends nothing when
// it already matches. author is the bot's login: a comment by anyone else
// is never adopted or edited, whatever marker it carries.
func UpsertComment(ctx context.Context, api CommentAPI, repo github.Repo, author string, c KeyedComment) (github.Comment, bool, error) {
	number, comments, key, body := c.Issue, c.Listed, c.Key, c.Body
	if !strings.Contains(body, audit.Marker(key)) {
		return github.Comment{}, false, fmt.Errorf("upsert comment %s on %s#%d: body lacks its key marker", key, repo, number)
	}
	if author == "" {
		return github.Comment{}, false, fmt.Errorf("upsert comment %s on %s#%d: %w", key, repo, number, ErrNoIdentity)
	}
	if comments == nil {
		var err error
		if comments, err = api.ListComments(ctx, repo, number); err != nil {
			return github.Comment{}, false, fmt.Errorf("list comments of %s#%d: %w", repo, number, err)
		}
	}
	if c, ok := FindComment(comments, author, key); ok {
		if c.Body == github.CapBody(body) {
			return c, false, nil
		}
		edited, err := api.EditComment(ctx, repo, c.ID, body)
		if err != nil {
			return github.Comment{}, false, fmt.Errorf("edit comment %d (%s) on %s#%d: %w", c.ID, key, repo, number, err)
		}
		return edited, true, nil
	}
	created, err := api.CreateComment(ctx, repo, number, body)
	if err != nil {
		return github.Comment{}, false, fmt.Errorf("create comment %s on %s#%d: %w", key, repo, number, err)
	}
	return created, true, nil
}
