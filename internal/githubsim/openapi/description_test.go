package openapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
)

func loaded(t *testing.T) *Description {
	t.Helper()
	d, err := Default()
	require.NoError(t, err)
	return d
}

func TestDescriptionSaysWhereItCameFrom(t *testing.T) {
	d := loaded(t)
	assert.Equal(t, "23.0.2", d.Version)
	assert.NotEmpty(t, d.Operations)
	assert.Contains(t, d.GHESLacks, "3.17")
	assert.NoError(t, d.CompileAll(), "every schema of the file compiles")
}

func TestMatchPrefersTheMostLiteralTemplate(t *testing.T) {
	d := loaded(t)
	tests := []struct {
		method, path, want string
		ok                 bool
	}{
		{"GET", "/repos/o/r/issues/comments", "issues/list-comments-for-repo", true},
		{"GET", "/repos/o/r/issues/7", "issues/get", true},
		{"GET", "/repos/o/r/issues/comments/9", "issues/get-comment", true},
		{"GET", "/repos/o/r/git/ref/heads/feature/x", "git/get-ref", true},
		{"GET", "/repos/o/r/contents/a/b/c.go", "repos/get-content", true},
		{"GET", "/repos/o/r/issues/7/timeline", "", false},
		{"GET", "/repos/o/r/git/refs", "", false},
		{"POST", "/repos/o/r/issues/7", "", false},
	}
	for _, tt := range tests {
		op, ok := d.Match(tt.method, tt.path)
		require.Equal(t, tt.ok, ok, "%s %s", tt.method, tt.path)
		if ok {
			assert.Equal(t, tt.want, op.ID, "%s %s", tt.method, tt.path)
		}
	}
}

func TestCheckRequest(t *testing.T) {
	d := loaded(t)
	tests := []struct {
		name, method, path, query, body string
		wantErr                         string // "" when it conforms
	}{
		{"list issues", "GET", "/repos/o/r/issues", "labels=a%2Cb&per_page=100&state=open", "", ""},
		{"undeclared query parameter", "GET", "/repos/o/r/issues", "colour=red", "", `query parameter "colour" is not declared`},
		{"enum", "GET", "/repos/o/r/issues", "state=merged", "", "state="},
		{"per_page over 100", "GET", "/repos/o/r/issues", "per_page=101", "", "per_page must be 1..100"},
		{"page not an integer", "GET", "/repos/o/r/issues", "page=two", "", "not an integer"},
		{"path parameter type", "GET", "/repos/o/r/issues/seven", "", "", "issue_number"},
		{"required query parameter", "GET", "/search/issues", "", "", `required query parameter "q" missing`},
		{"create issue", "POST", "/repos/o/r/issues", "", `{"title":"t","body":"b","labels":["x"]}`, ""},
		{"missing required field", "POST", "/repos/o/r/issues", "", `{"body":"b"}`, "missing property 'title'"},
		{"wrong type", "POST", "/repos/o/r/issues/1/comments", "", `{"body":5}`, "want string"},
		{"bare label array", "POST", "/repos/o/r/issues/1/labels", "", `["a"]`, "requestBody schema"},
		{"empty label list", "PUT", "/repos/o/r/issues/1/labels", "", `{"labels":[]}`, "requestBody schema"},
		{"required body absent", "POST", "/repos/o/r/git/refs", "", "", "the request body is required"},
		{"body where none is taken", "GET", "/repos/o/r", "", `{"x":1}`, "takes none"},
		{"review event enum", "POST", "/repos/o/r/pulls/1/reviews", "", `{"event":"LGTM"}`, "requestBody schema"},
		{"no such operation", "GET", "/repos/o/r/git/refs", "", "", "no operation of GitHub's description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.CheckRequest(tt.method, tt.path, tt.query, []byte(tt.body))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestCheckResponse(t *testing.T) {
	d := loaded(t)
	issue := `{"id":1,"number":1,"title":"t","body":null,"state":"open","labels":[],"user":{"login":"a","id":2}}`
	tests := []struct {
		name, method, path string
		status             int
		body, wantErr      string
	}{
		{"issue", "GET", "/repos/o/r/issues/1", 200, issue, ""},
		{"conditional", "GET", "/repos/o/r/issues/1", 304, "", ""},
		{"undeclared success status", "POST", "/repos/o/r/issues", 200, issue, "status not declared"},
		{"field of the wrong type", "GET", "/repos/o/r/issues/1", 200, `{"id":"1"}`, "want integer"},
		{"enum", "GET", "/repos/o/r/issues/1", 200, `{"state_reason":"bored"}`, "state_reason"},
		{"null where not nullable", "GET", "/repos/o/r/issues/1", 200, `{"title":null}`, "got null, want string"},
		{"format", "GET", "/repos/o/r/issues/1", 200, `{"created_at":"yesterday"}`, "date-time"},
		{"not found", "GET", "/repos/o/r/issues/1", 404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`, ""},
		{"error without documentation_url", "GET", "/repos/o/r/issues/1", 404, `{"message":"Not Found"}`, "lacks documentation_url"},
		{"validation failed without errors", "POST", "/repos/o/r/issues", 422, `{"message":"Validation Failed","documentation_url":"x"}`, "lacks errors[]"},
		{"validation failed", "POST", "/repos/o/r/issues", 422, `{"message":"Validation Failed","documentation_url":"x","errors":[{"code":"missing_field","field":"title","resource":"Issue"}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, ok := d.Match(tt.method, tt.path)
			require.True(t, ok)
			err := d.CheckResponse(op, tt.status, []byte(tt.body))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestRequireFields(t *testing.T) {
	body := []byte(`{"user":{"login":"a"},"labels":[{"name":"x"},{"color":"y"}],"merged_by":null}`)
	assert.NoError(t, RequireFields(body, "user.login", "merged_by"))
	assert.ErrorContains(t, RequireFields(body, "labels[].name"), "labels[1].name")
	assert.ErrorContains(t, RequireFields(body, "head.ref"), "field head.ref missing")
	assert.ErrorContains(t, RequireFields([]byte(`[{"id":1},{}]`), "[].id"), "[1].id")
}

func TestSameTemplate(t *testing.T) {
	assert.True(t, SameTemplate("/repos/{owner}/{repo}/issues/{number}", "/repos/{owner}/{repo}/issues/{issue_number}"))
	assert.False(t, SameTemplate("/repos/{owner}/{repo}/issues/{number}", "/repos/{owner}/{repo}/issues/comments"))
	assert.False(t, SameTemplate("/repos/{owner}/{repo}/git/refs", "/repos/{owner}/{repo}/git/refs/{ref}"))
}

// What GHES takes otherwise than github.com, among the operations CogWorks
// uses: only the installation token request, whose "permissions" object
// names other permissions there (enterprise_administration, ...).
// CogWorks sends {} (no permissions; TestAppAuthUsesInstallationToken),
// which both accept. A new entry after
// regenerating means a request CogWorks sends may be refused on GHES:
// look at it before adding it here.
func TestGHESTakesWhatGitHubComTakes(t *testing.T) {
	d := loaded(t)
	require.NotEmpty(t, d.GHESDiffers)
	for version, differs := range d.GHESDiffers {
		assert.Equal(t, []string{"POST /app/installations/{installation_id}/access_tokens: request body"}, differs, "GHES %s", version)
	}
}

// CheckLog remembers the exchanges that passed, never the ones that
// failed: the same bad answer is reported by every call that logs it.
func TestCheckLogRemembersOnlyPasses(t *testing.T) {
	d := loaded(t)
	good := githubsim.RequestLog{Method: "GET", Path: "/repos/o/r/issues/1/labels", Status: 200, Response: []byte(`[]`)}
	bad := githubsim.RequestLog{Method: "GET", Path: "/repos/o/r/issues/1/labels", Status: 200, Response: []byte(`{"not":"a list"}`)}
	for range 2 {
		require.NoError(t, d.CheckLog([]githubsim.RequestLog{good}))
		assert.Error(t, d.CheckLog([]githubsim.RequestLog{good, bad}), "a failure is reported again")
		assert.Error(t, d.CheckLog([]githubsim.RequestLog{bad, bad}))
	}
}

// CheckRequests holds what CogWorks sends to the description and leaves
// the simulator's answers alone.
func TestCheckRequestsLeavesAnswersAlone(t *testing.T) {
	d := loaded(t)
	badAnswer := githubsim.RequestLog{Method: "GET", Path: "/repos/o/r/issues/1/labels", Status: 200, Response: []byte(`{"not":"a list"}`)}
	badQuery := githubsim.RequestLog{Method: "GET", Path: "/repos/o/r/issues/1/labels", Query: "per_page=500", Status: 200, Response: []byte(`[]`)}
	assert.NoError(t, d.CheckRequests([]githubsim.RequestLog{badAnswer}))
	assert.Error(t, d.CheckLog([]githubsim.RequestLog{badAnswer}))
	assert.Error(t, d.CheckRequests([]githubsim.RequestLog{badQuery}), "per_page above 100")
}
