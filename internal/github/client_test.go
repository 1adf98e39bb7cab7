package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetIssueConvertsToNeutralType(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/issues/7", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer test-token", r.Header.Get("Authorization"))
		assert.Equal(t, "cogworks", r.Header.Get("User-Agent"))
		writeJSON(t, w, 200, map[string]any{
			"id": 1007, "number": 7, "title": "Add CAN driver", "body": "please", "state": "open",
			"labels":       []map[string]any{{"name": "cogworks:run"}, {"name": "cogworks:stage:spec"}},
			"user":         map[string]any{"login": "alice"},
			"pull_request": map[string]any{"url": "x"},
			"html_url":     "https://example/o/r/issues/7",
			"created_at":   "2024-05-01T10:00:00Z", "updated_at": "2024-05-02T11:30:00Z",
		})
	})
	c, _ := newTestClient(t, mux)

	got, err := c.GetIssue(context.Background(), testRepo, 7)
	require.NoError(t, err)
	assert.Equal(t, Issue{
		ID: 1007, Number: 7, Title: "Add CAN driver", Body: "please", State: "open",
		Labels: []string{"cogworks:run", "cogworks:stage:spec"}, User: "alice", IsPullRequest: true,
		HTMLURL:   "https://example/o/r/issues/7",
		CreatedAt: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), UpdatedAt: time.Date(2024, 5, 2, 11, 30, 0, 0, time.UTC),
	}, got)
	assert.True(t, got.HasLabel("cogworks:run"))
	assert.EqualValues(t, 1, c.Requests())
}

func TestGetRepo(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"full_name": "o/r", "default_branch": "trunk"})
	})
	c, _ := newTestClient(t, mux)
	info, err := c.GetRepo(context.Background(), testRepo)
	require.NoError(t, err)
	assert.Equal(t, RepoInfo{FullName: "o/r", DefaultBranch: "trunk"}, info)
}

func TestErrorMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		body     map[string]any
		call     func(*Client) error
		sentinel error
		method   string
		path     string
		message  string
	}{
		{
			name: "issue 404", status: 404, body: map[string]any{"message": "Not Found"},
			call:     func(c *Client) error { _, err := c.GetIssue(context.Background(), testRepo, 9); return err },
			sentinel: ErrNotFound, method: "GET", path: "/api/v3/repos/o/r/issues/9", message: "Not Found",
		},
		{
			name: "remove absent label", status: 404, body: map[string]any{"message": "Label does not exist"},
			call:     func(c *Client) error { return c.RemoveLabel(context.Background(), testRepo, 3, "x") },
			sentinel: ErrNotFound, method: "DELETE", path: "/api/v3/repos/o/r/issues/3/labels/x", message: "Label does not exist",
		},
		{
			name: "duplicate PR", status: 422,
			body: map[string]any{"message": "Validation Failed", "errors": []map[string]any{
				{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for o:cogworks/1/swi-1."}}},
			call: func(c *Client) error {
				_, err := c.CreatePull(context.Background(), testRepo, NewPull{Title: "t", Head: "cogworks/1/swi-1", Base: "main"})
				return err
			},
			sentinel: ErrUnprocessable, method: "POST", path: "/api/v3/repos/o/r/pulls",
			message: "Validation Failed: A pull request already exists for o:cogworks/1/swi-1.",
		},
		{
			name: "existing label", status: 422,
			body: map[string]any{"message": "Validation Failed", "errors": []map[string]any{
				{"resource": "Label", "code": "already_exists", "field": "name"}}},
			call: func(c *Client) error {
				return c.CreateRepoLabel(context.Background(), testRepo, Label{Name: "a", Color: "ffffff"})
			},
			sentinel: ErrUnprocessable, method: "POST", path: "/api/v3/repos/o/r/labels",
			message: "Validation Failed: already_exists Label.name",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(t, w, tt.status, tt.body)
			}))
			err := tt.call(c)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.sentinel)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, &APIError{Method: tt.method, Path: tt.path, Status: tt.status, Message: tt.message}, apiErr)
			assert.EqualValues(t, 1, c.Requests(), "4xx answers are not retried")
		})
	}
}

// pagedHandler serves items in pages of size per, with GitHub Link headers.
func pagedHandler(t *testing.T, total, per int, item func(i int) map[string]any) http.HandlerFunc {
	t.Helper()
	return func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "100", r.URL.Query().Get("per_page"))
		page := 1
		if p := r.URL.Query().Get("page"); p != "" {
			_, err := fmt.Sscan(p, &page)
			require.NoError(t, err)
		}
		var items []map[string]any
		for i := (page - 1) * per; i < min(page*per, total); i++ {
			items = append(items, item(i))
		}
		if page*per < total {
			next := *r.URL
			q := next.Query()
			q.Set("page", fmt.Sprint(page+1))
			next.RawQuery = q.Encode()
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next.RequestURI()))
		}
		writeJSON(t, w, 200, items)
	}
}

func TestListMethodsFollowAllPages(t *testing.T) {
	t.Parallel()
	issue := func(i int) map[string]any {
		return map[string]any{"id": 100 + i, "number": i + 1, "title": fmt.Sprint("t", i)}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/issues", pagedHandler(t, 5, 2, issue))
	mux.HandleFunc("GET /api/v3/repos/o/r/issues/1/sub_issues", pagedHandler(t, 3, 2, issue))
	mux.HandleFunc("GET /api/v3/repos/o/r/issues/1/comments", pagedHandler(t, 3, 1, func(i int) map[string]any {
		return map[string]any{"id": i, "body": fmt.Sprint("c", i), "user": map[string]any{"login": "bot"}}
	}))
	mux.HandleFunc("GET /api/v3/repos/o/r/labels", pagedHandler(t, 4, 3, func(i int) map[string]any {
		return map[string]any{"name": fmt.Sprint("l", i), "color": "00ff00"}
	}))
	mux.HandleFunc("GET /api/v3/search/issues", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "repo:o/r label:cogworks:run", r.URL.Query().Get("q"))
		items := pagedItems(r, 3, 2, issue)
		if r.URL.Query().Get("page") == "" {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/v3/search/issues?q=x&page=2>; rel="next"`, r.Host))
		}
		writeJSON(t, w, 200, map[string]any{"total_count": 3, "items": items})
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()

	issues, err := c.ListIssues(ctx, testRepo, IssueFilter{State: "all"})
	require.NoError(t, err)
	require.Len(t, issues, 5)
	assert.Equal(t, 5, issues[4].Number)

	subs, err := c.ListSubIssues(ctx, testRepo, 1)
	require.NoError(t, err)
	assert.Len(t, subs, 3)

	comments, err := c.ListComments(ctx, testRepo, 1)
	require.NoError(t, err)
	require.Len(t, comments, 3)
	assert.Equal(t, Comment{ID: 2, Body: "c2", User: "bot"}, comments[2])

	labels, err := c.ListRepoLabels(ctx, testRepo)
	require.NoError(t, err)
	assert.Equal(t, []Label{{"l0", "00ff00", ""}, {"l1", "00ff00", ""}, {"l2", "00ff00", ""}, {"l3", "00ff00", ""}}, labels)

	found, err := c.SearchIssues(ctx, "repo:o/r label:cogworks:run")
	require.NoError(t, err)
	assert.Len(t, found, 3)

	assert.EqualValues(t, 3+2+3+2+2, c.Requests())
}

func pagedItems(r *http.Request, total, per int, item func(int) map[string]any) []map[string]any {
	page := 1
	if r.URL.Query().Get("page") == "2" {
		page = 2
	}
	var items []map[string]any
	for i := (page - 1) * per; i < min(page*per, total); i++ {
		items = append(items, item(i))
	}
	return items
}

func TestListPullsQualifiesHeadWithOwner(t *testing.T) {
	t.Parallel()
	tests := []struct{ head, want string }{
		{"cogworks/4/swi-1", "o:cogworks/4/swi-1"},
		{"fork:feature", "fork:feature"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.head, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("GET /api/v3/repos/o/r/pulls", func(w http.ResponseWriter, r *http.Request) {
				assert.Equal(t, tt.want, r.URL.Query().Get("head"))
				assert.Equal(t, "all", r.URL.Query().Get("state"))
				writeJSON(t, w, 200, []map[string]any{{
					"id": 1, "number": 12, "state": "closed", "merged_at": "2024-01-01T00:00:00Z",
					"head": map[string]any{"ref": "cogworks/4/swi-1", "sha": "abc"}, "base": map[string]any{"ref": "main"},
				}})
			})
			c, _ := newTestClient(t, mux)
			prs, err := c.ListPulls(context.Background(), testRepo, PullFilter{State: "all", Head: tt.head})
			require.NoError(t, err)
			assert.Equal(t, []PullRequest{{ID: 1, Number: 12, State: "closed", Head: "cogworks/4/swi-1",
				HeadSHA: "abc", Base: "main", Merged: true}}, prs)
		})
	}
}

func TestCreateCommentReview(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/repos/o/r/pulls/5/reviews", func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		assert.Equal(t, "COMMENT", body["event"])
		assert.Equal(t, "sha1", body["commit_id"])
		assert.Equal(t, []any{map[string]any{"path": "a.go", "line": 3.0, "side": "RIGHT", "body": "nit"}}, body["comments"])
		writeJSON(t, w, 200, map[string]any{"id": 77, "state": "COMMENTED", "body": "summary", "user": map[string]any{"login": "bot"}})
	})
	c, _ := newTestClient(t, mux)
	got, err := c.CreateReview(context.Background(), testRepo, 5, NewReview{Event: ReviewComment, Body: "summary",
		CommitID: "sha1", Comments: []InlineComment{{Path: "a.go", Line: 3, Body: "nit"}}})
	require.NoError(t, err)
	assert.Equal(t, Review{ID: 77, State: "COMMENTED", Body: "summary", User: "bot"}, got)

	_, err = c.CreateReview(context.Background(), testRepo, 5, NewReview{Event: "PENDING"})
	require.ErrorContains(t, err, `review event "PENDING"`)
}

func TestSubIssueAndPermission(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/repos/o/r/issues/1/sub_issues", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"sub_issue_id": 4242.0}, readJSON(t, r))
		writeJSON(t, w, 201, map[string]any{"id": 4242, "number": 2})
	})
	perms := map[string]map[string]any{
		"maint":  {"permission": "write", "role_name": "maintain"},
		"legacy": {"permission": "admin"},
		"reader": {"permission": "read", "role_name": "triage"},
	}
	mux.HandleFunc("GET /api/v3/repos/o/r/collaborators/{user}/permission", func(w http.ResponseWriter, r *http.Request) {
		p, ok := perms[r.PathValue("user")]
		if !ok {
			writeJSON(t, w, 404, map[string]any{"message": "Not Found"})
			return
		}
		writeJSON(t, w, 200, p)
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()
	require.NoError(t, c.AddSubIssue(ctx, testRepo, 1, 4242))

	for user, want := range map[string]string{"maint": "maintain", "legacy": "admin", "reader": "triage", "stranger": "none"} {
		got, err := c.CollaboratorPermission(ctx, testRepo, user)
		require.NoError(t, err, user)
		assert.Equal(t, want, got, user)
	}
}

func TestIssueWrites(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/repos/o/r/issues", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"title": "SWI 1", "body": "b", "labels": []any{"cogworks:swi"}}, readJSON(t, r))
		writeJSON(t, w, 201, map[string]any{"id": 9, "number": 3, "title": "SWI 1", "labels": []map[string]any{{"name": "cogworks:swi"}}})
	})
	mux.HandleFunc("PATCH /api/v3/repos/o/r/issues/3", func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		assert.Equal(t, map[string]any{"body": "new"}, body, "only set fields are sent; never state")
		writeJSON(t, w, 200, map[string]any{"id": 9, "number": 3, "body": "new"})
	})
	mux.HandleFunc("POST /api/v3/repos/o/r/issues/3/labels", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, []map[string]any{{"name": "a"}})
	})
	mux.HandleFunc("PATCH /api/v3/repos/o/r/issues/comments/55", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"body": "edited"}, readJSON(t, r))
		writeJSON(t, w, 200, map[string]any{"id": 55, "body": "edited"})
	})
	mux.HandleFunc("DELETE /api/v3/repos/o/r/issues/comments/55", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/issues/3/events", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, []map[string]any{{"id": 1, "event": "labeled", "label": map[string]any{"name": "cogworks:approve"},
			"actor": map[string]any{"login": "alice"}, "created_at": "2024-05-01T10:00:00Z"}})
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()

	is, err := c.CreateIssue(ctx, testRepo, NewIssue{Title: "SWI 1", Body: "b", Labels: []string{"cogworks:swi"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"cogworks:swi"}, is.Labels)
	body := "new"
	is, err = c.UpdateIssue(ctx, testRepo, 3, IssueUpdate{Body: &body})
	require.NoError(t, err)
	assert.Equal(t, "new", is.Body)
	require.NoError(t, c.AddLabels(ctx, testRepo, 3, "a"))
	cm, err := c.EditComment(ctx, testRepo, 55, "edited")
	require.NoError(t, err)
	assert.Equal(t, "edited", cm.Body)
	require.NoError(t, c.DeleteComment(ctx, testRepo, 55))
	events, err := c.ListIssueEvents(ctx, testRepo, 3)
	require.NoError(t, err)
	assert.Equal(t, []IssueEvent{{ID: 1, Event: "labeled", Label: "cogworks:approve", Actor: "alice",
		CreatedAt: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)}}, events)
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	permissive := Manifest{Allow: []Operation{OpMergePull}}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"token and app", Options{Token: "t", App: &AppAuth{AppID: 1, InstallationID: 2, PrivateKey: []byte("k")}}, "either a token or App"},
		{"bad base url", Options{BaseURL: "ftp://x"}, "base URL"},
		{"app without key", Options{App: &AppAuth{AppID: 1, InstallationID: 2}}, "private key is empty"},
		{"manifest allows merge", Options{Manifest: &permissive}, "allows pulls.merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.opts)
			require.ErrorContains(t, err, tt.want)
			assert.NotContains(t, err.Error(), "k\"")
		})
	}
	_, err := New(context.Background(), Options{App: &AppAuth{AppID: 1, InstallationID: 2, PrivateKey: []byte("not a key")}})
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrNotFound))
	assert.NotContains(t, err.Error(), "not a key")
}

func TestConnectionRefusedIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, err := New(context.Background(), Options{BaseURL: url + "/api/v3/", Token: "t", Retry: RetryPolicy{MaxRetries: -1}})
	require.NoError(t, err)
	_, err = c.GetIssue(context.Background(), testRepo, 1)
	require.Error(t, err)
	var ne *NetworkError
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Transient(), "an outage: the engine keeps the stage and retries next time")
}
