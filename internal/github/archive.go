package github

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// archiveTimeout bounds one archive download.
const archiveTimeout = 10 * time.Minute

// Tarball returns the repository's files at ref as a gzipped tar archive
// (every entry under one top-level directory): one API request, whatever
// the repository's size, instead of one per file. GitHub answers with a
// redirect to a download URL that carries its own short-lived grant; the
// download is sent without the client's credentials and does not count
// against the API rate limit. The caller closes the reader.
func (c *Client) Tarball(ctx context.Context, repo Repo, ref string) (io.ReadCloser, error) {
	what := fmt.Sprintf("download the tarball of %s@%s", repo, ref)
	u, _, err := c.gh.Repositories.GetArchiveLink(ctx, repo.Owner, repo.Name, gh.Tarball,
		&gh.RepositoryContentGetOptions{Ref: ref}, 0)
	if err != nil {
		return nil, convertError(what, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := c.download.Do(req)
	if err != nil {
		return nil, convertError(what, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("%s: %w", what, &APIError{Method: http.MethodGet, Path: u.Path, Status: resp.StatusCode, Message: resp.Status})
	}
	return resp.Body, nil
}
