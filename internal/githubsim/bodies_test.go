package githubsim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GitHub checks a body against its schema first: malformed JSON is 400,
// a field of the wrong type or a missing required field is 422 "Invalid
// request" (no errors[]; that is "Validation Failed"'s).
func TestBodiesGitHubsSchemaRefuses(t *testing.T) {
	s := New()
	s.CreateRepo("acme", "widgets", "main")
	tests := []struct {
		name, path, body string
		status           int
		message          string
	}{
		{"malformed", "/repos/acme/widgets/issues", `{"title":`, 400, "Problems parsing JSON"},
		{"wrong type", "/repos/acme/widgets/issues", `{"title":5}`, 422, "Invalid request.\n\nFor 'properties/title', 5 is not a string."},
		{"tree missing", "/repos/acme/widgets/git/trees", `{}`, 422, "Invalid request.\n\n\"tree\" wasn't supplied."},
		{"empty tree", "/repos/acme/widgets/git/trees", `{"tree":[]}`, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body)))
			require.Equal(t, tt.status, rec.Code, rec.Body.String())
			if tt.message == "" {
				return
			}
			var e map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
			assert.Equal(t, tt.message, e["message"])
			assert.NotEmpty(t, e["documentation_url"])
			assert.NotContains(t, e, "errors")
		})
	}
}
