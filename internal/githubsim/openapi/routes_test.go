package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
)

// TestSimRoutesAreGitHubOperations: every route the simulator serves is an
// operation of GitHub's description (method and path template), and every
// operation of the trimmed description is a route of the simulator.
func TestSimRoutesAreGitHubOperations(t *testing.T) {
	d := description(t)
	served := map[string]bool{}
	for _, r := range githubsim.New().Routes() {
		if r.NotREST != "" {
			assert.Empty(t, r.Operations, "%s %s", r.Method, r.Path)
			continue
		}
		require.NotEmpty(t, r.Operations, "%s %s names no operation", r.Method, r.Path)
		for _, tmpl := range r.Operations {
			op, ok := d.Lookup(r.Method, tmpl)
			if assert.True(t, ok, "the simulator serves %s %s (route %s), which GitHub's description does not have", r.Method, tmpl, r.Path) {
				served[op.Key()] = true
			}
		}
	}
	for _, op := range d.Operations {
		assert.True(t, served[op.Key()], "%s is in the trimmed description but no route serves it: regenerate (docs/github-conformance.md)", op)
	}
}

// probeSim is a simulator seeded so that every operation's path names
// something that exists: issue 1 with a comment, label "bug", PR 2 from
// branch "feature", an App installation.
type probeSim struct {
	sim *githubsim.Server
	// vars are the values of path parameters ("opID:param" first).
	vars map[string]string
	// bodies are request bodies by operationId ("{}" otherwise, none
	// where the operation takes none).
	bodies map[string]string
}

func newProbeSim(t *testing.T, opts ...githubsim.Option) *probeSim {
	t.Helper()
	sim := githubsim.New(opts...)
	sim.AddToken("tok", "cogworks[bot]")
	sim.CreateRepo("acme", "widgets", "main")
	sim.SeedFiles("acme/widgets", "main", map[string]string{"README.md": "# widgets\n"})
	sim.SeedFiles("acme/widgets", "feature", map[string]string{"README.md": "# widgets\n", "a.go": "package a\n"})
	sim.SeedLabel("acme/widgets", "bug", "d73a4a", "")
	sim.AddCollaborator("acme/widgets", "alice", "write")
	issue := sim.SeedIssue("acme/widgets", "alice", "Parent", "body", "bug")
	require.Equal(t, 1, issue)
	p := &probeSim{sim: sim, vars: map[string]string{
		"owner": "acme", "repo": "widgets", "issue_number": "1", "name": "bug", "ref": "heads/main",
		"repos/download-tarball-archive:ref": "main",
		"path":                               "README.md", "branch": "main", "username": "alice", "installation_id": "7",
		"delivery_id": "1",
	}, bodies: map[string]string{}}
	child := sim.SeedIssue("acme/widgets", "alice", "Child", "body")
	var childIssue struct{ ID json.Number }
	p.do(t, "GET", "/repos/acme/widgets/issues/"+strconv.Itoa(child), "", &childIssue)
	link := `{"sub_issue_id":` + childIssue.ID.String() + `}`
	// On a GHES without sub-issues the link fails (404), as it would there.
	p.do(t, "POST", "/repos/acme/widgets/issues/1/sub_issues", link, nil)
	p.bodies["issues/remove-sub-issue"] = link
	// Bodies GitHub accepts, so that success answers are checked too.
	for id, body := range map[string]string{
		"git/create-blob":                       `{"content":"hello","encoding":"utf-8"}`,
		"git/create-tree":                       `{"base_tree":"{tree_sha}","tree":[{"path":"a.txt","mode":"100644","type":"blob","content":"a"}]}`,
		"git/create-commit":                     `{"message":"m","tree":"{tree_sha}","parents":["{commit_sha}"]}`,
		"git/create-ref":                        `{"ref":"refs/heads/new","sha":"{commit_sha}"}`,
		"git/update-ref":                        `{"sha":"{commit_sha}","force":false}`,
		"repos/create-or-update-file-contents":  `{"message":"m","content":"eA==","sha":"{file_sha}","branch":"main"}`,
		"repos/delete-file":                     `{"message":"m","sha":"{file_sha}","branch":"main"}`,
		"issues/create":                         `{"title":"t","body":"b","labels":["bug"]}`,
		"issues/update":                         `{"title":"t2","body":"b2"}`,
		"issues/create-comment":                 `{"body":"b"}`,
		"issues/update-comment":                 `{"body":"b2"}`,
		"reactions/create-for-issue-comment":    `{"content":"eyes"}`,
		"issues/add-labels":                     `{"labels":["bug","new"]}`,
		"issues/set-labels":                     `{"labels":["new"]}`,
		"issues/create-label":                   `{"name":"new","color":"ffffff","description":"d"}`,
		"issues/update-label":                   `{"new_name":"bug2","color":"000000"}`,
		"pulls/update":                          `{"title":"t2"}`,
		"pulls/create-review":                   `{"event":"COMMENT","body":"b"}`,
		"pulls/merge":                           `{"merge_method":"merge"}`,
		"pulls/create-reply-for-review-comment": `{"body":"done"}`,
	} {
		p.bodies[id] = body
	}
	var comment struct{ ID json.Number }
	p.do(t, "POST", "/repos/acme/widgets/issues/1/comments", `{"body":"hi"}`, &comment)
	p.vars["comment_id"] = comment.ID.String()
	var pr struct{ Number json.Number }
	p.do(t, "POST", "/repos/acme/widgets/pulls", `{"title":"t","head":"feature","base":"main"}`, &pr)
	p.vars["pull_number"] = pr.Number.String()
	// An inline comment (a.go is in the PR's diff) to reply to.
	p.do(t, "POST", "/repos/acme/widgets/pulls/"+pr.Number.String()+"/reviews",
		`{"event":"COMMENT","body":"r","comments":[{"path":"a.go","line":1,"body":"why?"}]}`, &struct{}{})
	var threads []struct{ ID json.Number }
	p.do(t, "GET", "/repos/acme/widgets/pulls/"+pr.Number.String()+"/comments", "", &threads)
	require.Len(t, threads, 1)
	p.vars["pulls/create-reply-for-review-comment:comment_id"] = threads[0].ID.String()
	// A commit on main the PR's branch lacks (for update-branch).
	sim.SeedFiles("acme/widgets", "main", map[string]string{"b.txt": "b\n"})
	var branch struct {
		Commit struct {
			SHA    string
			Commit struct{ Tree struct{ SHA string } }
		}
	}
	p.do(t, "GET", "/repos/acme/widgets/branches/main", "", &branch)
	p.vars["commit_sha"], p.vars["tree_sha"] = branch.Commit.SHA, branch.Commit.Commit.Tree.SHA
	var tree struct{ Tree []struct{ SHA string } }
	p.do(t, "GET", "/repos/acme/widgets/git/trees/"+p.vars["tree_sha"], "", &tree)
	require.NotEmpty(t, tree.Tree)
	p.vars["file_sha"] = tree.Tree[0].SHA
	p.vars["search/issues-and-pull-requests:query"] = "q=repo%3Aacme%2Fwidgets+is%3Aissue"
	// A failed workflow run on the PR's head.
	ids, err := sim.SeedWorkflowRun("acme/widgets", githubsim.CIRun{Branch: "feature", Jobs: []githubsim.CIJob{{
		Name: "test", Conclusion: "failure", RunnerName: "GitHub Actions 2", Log: "FAIL\n",
		Steps:       []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "go test", Conclusion: "failure"}},
		Annotations: []githubsim.CIAnnotation{{Path: "a.go", Line: 1, Message: "undefined: x"}},
	}}})
	require.NoError(t, err)
	p.vars["run_id"], p.vars["job_id"] = strconv.FormatInt(ids.Run, 10), strconv.FormatInt(ids.Jobs[0], 10)
	p.vars["check_run_id"] = p.vars["job_id"]
	p.vars["checks/list-for-ref:ref"], p.vars["checks/list-suites-for-ref:ref"] = "feature", "feature"
	p.vars["actions/list-workflow-runs-for-repo:query"] = "head_sha=" + branch.Commit.SHA
	p.bodies["pulls/update-branch"] = "{}"
	p.vars["basehead"] = "main...feature"
	return p
}

// do sends one request straight to the simulator's handler.
func (p *probeSim) do(t *testing.T, method, path, body string, out any) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, "http://sim.test/api/v3"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "token tok")
	rec := httptest.NewRecorder()
	p.sim.Handler().ServeHTTP(rec, req)
	if out != nil {
		require.Less(t, rec.Code, 300, "%s %s: %s", method, path, rec.Body)
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), out))
	}
	return rec
}

func (p *probeSim) body(op *openapi.Operation) string {
	if b, ok := p.bodies[op.ID]; ok {
		for name, v := range p.vars {
			b = strings.ReplaceAll(b, "{"+name+"}", v)
		}
		return b
	}
	if !op.TakesBody() {
		return ""
	}
	return "{}"
}

// path fills an operation's path parameters with the seeded values.
func (p *probeSim) path(t *testing.T, op *openapi.Operation) string {
	t.Helper()
	segs := strings.Split(op.Path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			name := strings.Trim(s, "{}")
			v, ok := p.vars[op.ID+":"+name]
			if !ok {
				v, ok = p.vars[name]
			}
			require.True(t, ok, "no probe value for %s in %s", s, op)
			segs[i] = v
		}
	}
	path := strings.Join(segs, "/")
	if q, ok := p.vars[op.ID+":query"]; ok {
		path += "?" + q
	}
	return path
}

// TestSimServesEveryOperation sends each operation of the description to a
// fresh simulator, on resources that exist, and again to one serving each
// GHES version the description lists: github.com must answer every one
// (not 404), GHES exactly those its description has, and every answer,
// error or not, must be of the operation's declared statuses and shapes.
func TestSimServesEveryOperation(t *testing.T) {
	d := description(t)
	require.NotEmpty(t, d.GHESLacks)
	for _, op := range d.Operations {
		dotcom := newProbeSim(t)
		path := dotcom.path(t, op)
		rec := dotcom.do(t, op.Method, path, dotcom.body(op), nil)
		assert.NotEqual(t, http.StatusNotFound, rec.Code, "%s: %s %s answered %s", op, op.Method, path, rec.Body)
		assert.NoError(t, d.CheckResponse(op, rec.Code, rec.Body.Bytes()))
		// The /app operations need an App's JWT (internal/github's App
		// tests sign one).
		if _, valid := dotcom.bodies[op.ID]; valid || op.Method == "GET" && !strings.HasPrefix(op.Path, "/app") {
			assert.Less(t, rec.Code, 400, "%s: a request GitHub accepts: %s", op, rec.Body)
		}
		pathOnly, query, _ := strings.Cut(path, "?")
		if _, err := d.CheckRequest(op.Method, pathOnly, query, []byte(dotcom.body(op))); err != nil {
			// GitHub validates bodies against its schema before anything
			// else: 422 (or 400).
			assert.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, rec.Code,
				"%s: GitHub refuses the body %s (%v); the simulator answered %d %s", op, dotcom.body(op), err, rec.Code, rec.Body)
		}
		for version, lacks := range d.GHESLacks {
			ghes := newProbeSim(t, githubsim.WithEnterprise(version+".0"))
			got := ghes.do(t, op.Method, ghes.path(t, op), ghes.body(op), nil)
			if slices.Contains(lacks, op.Key()) {
				assert.Equal(t, http.StatusNotFound, got.Code, "GHES %s lacks %s", version, op)
			} else {
				assert.Equal(t, rec.Code, got.Code, "GHES %s has %s, as github.com: %s", version, op, got.Body)
			}
		}
	}
}

// TestSimRefusesWhatGitHubDoesNotServe: a method GitHub does not serve on
// a path, or a path GitHub has no operation for, is answered 404 in
// GitHub's error shape, never served.
func TestSimRefusesWhatGitHubDoesNotServe(t *testing.T) {
	d := description(t)
	// Refused requests are no content created; the secondary limit
	// (which the simulator counts before routing) is beside the point.
	p := newProbeSim(t, githubsim.WithRelaxed(githubsim.RuleSecondaryRateLimit))
	tried := 0
	for _, op := range d.Operations {
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if !d.Refuses(method, op.Path) {
				continue
			}
			tried++
			path := p.path(t, op)
			rec := p.do(t, method, path, "{}", nil)
			assert.Equal(t, http.StatusNotFound, rec.Code, "GitHub does not serve %s %s", method, op.Path)
			assert.JSONEq(t, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`, rec.Body.String(), "%s %s", method, path)
		}
	}
	assert.Greater(t, tried, 50, "most paths serve only some methods")
	for _, path := range []string{
		"/repos/acme/widgets/issues/1/bogus", "/repos/acme/widgets/issues/comments",
		"/repos/acme/widgets/git/refs", "/repos/acme/widgets/git/refs/heads/main", "/repos/acme/widgets/pulls/2/bogus",
	} {
		if _, ok := d.Match("DELETE", path); ok {
			continue
		}
		rec := p.do(t, "DELETE", path, "", nil)
		assert.Equal(t, http.StatusNotFound, rec.Code, "DELETE %s", path)
	}
	for _, path := range []string{"/repos/acme/widgets/issues/1/bogus", "/repos/acme/widgets/git/refs", "/repos/acme/widgets/git/refs/heads/main"} {
		_, ok := d.Match("GET", path)
		require.False(t, ok, "GET %s is no operation of GitHub's", path)
		rec := p.do(t, "GET", path, "", nil)
		assert.Equal(t, http.StatusNotFound, rec.Code, "GET %s", path)
	}
}
