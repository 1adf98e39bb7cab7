package github

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// PullFile is one file a pull request changes, with the head-side lines
// its diff shows: the only lines GitHub lets an inline review comment
// anchor on (any other answers 422 "Pull request review thread line must
// be part of the diff").
type PullFile struct {
	Path   string
	Status string
	// Lines are the head-side line numbers inside the diff's hunks
	// (added and context lines).
	Lines map[int]bool
}

// ListPullFiles lists the files a PR changes and the lines of each that
// its diff shows.
func (c *Client) ListPullFiles(ctx context.Context, repo Repo, number int) ([]PullFile, error) {
	files, err := paginate(func(lo gh.ListOptions) ([]*gh.CommitFile, *gh.Response, error) {
		return c.gh.PullRequests.ListFiles(ctx, repo.Owner, repo.Name, number, &lo)
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list files of %s#%d", repo, number), err)
	}
	return mapSlice(files, func(f *gh.CommitFile) PullFile {
		return PullFile{Path: f.GetFilename(), Status: f.GetStatus(), Lines: PatchLines(f.GetPatch())}
	}), nil
}

// PatchLines returns the head-side line numbers a unified patch's hunks
// cover. A patch GitHub omits (binary or very large files) covers none.
func PatchLines(patch string) map[int]bool {
	lines := map[int]bool{}
	next := 0
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "@@") {
			next = hunkStart(l)
			continue
		}
		if next == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(l, "-"), strings.HasPrefix(l, `\`):
		default: // '+', ' ' or an empty context line
			lines[next] = true
			next++
		}
	}
	return lines
}

// hunkStart reads c from "@@ -a,b +c,d @@ ..."; 0 when malformed.
func hunkStart(header string) int {
	_, rest, ok := strings.Cut(header, "+")
	if !ok {
		return 0
	}
	end := strings.IndexAny(rest, ", ")
	if end < 0 {
		return 0
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}

// ListReviews returns every review submitted on a PR.
func (c *Client) ListReviews(ctx context.Context, repo Repo, number int) ([]Review, error) {
	reviews, err := paginate(func(lo gh.ListOptions) ([]*gh.PullRequestReview, *gh.Response, error) {
		return c.gh.PullRequests.ListReviews(ctx, repo.Owner, repo.Name, number, &lo)
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list reviews of %s#%d", repo, number), err)
	}
	return mapSlice(reviews, func(r *gh.PullRequestReview) Review {
		return Review{ID: r.GetID(), State: r.GetState(), Body: r.GetBody(), User: r.GetUser().GetLogin(),
			UserType: r.GetUser().GetType()}
	}), nil
}
