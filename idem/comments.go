package idem

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/github"
)

// CommentAPI is what UpsertComment needs from GitHub.
type CommentAPI interface {
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
	EditComment(ctx context.Context, repo github.Repo, id int64, body string) (github.Comment, error)
}

// FindComment returns the first comment carrying the key marker.
func FindComment(comments []github.Comment, key string) (github.Comment, bool) {
	marker := audit.Marker(key)
	for _, c := range comments {
		if strings.Contains(c.Body, marker) {
			return c, true
		}
	}
	return github.Comment{}, false
}

// UpsertComment makes the comment with the given key read body: it creates
// it when absent, edits it in place when different, and sends nothing when
// it already matches. body must contain the key's marker (audit.Format
// adds it). comments is the comment list as last read; pass nil
// to have it listed.
func UpsertComment(ctx context.Context, api CommentAPI, repo github.Repo, number int, comments []github.Comment, key, body string) (github.Comment, bool, error) {
	if !strings.Contains(body, audit.Marker(key)) {
		return github.Comment{}, false, fmt.Errorf("upsert comment %s on %s#%d: body lacks its key marker", key, repo, number)
	}
	if comments == nil {
		var err error
		if comments, err = api.ListComments(ctx, repo, number); err != nil {
			return github.Comment{}, false, fmt.Errorf("list comments of %s#%d: %w", repo, number, err)
		}
	}
	if c, ok := FindComment(comments, key); ok {
		if c.Body == body {
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
