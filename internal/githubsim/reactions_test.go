package githubsim

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommentReactions(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	cm, _, err := f.client.Issues.CreateComment(c, owner, name, 1, &github.IssueComment{Body: github.String("/cogworks approve")})
	require.NoError(t, err)

	tests := []struct {
		name     string
		comment  int64
		content  string
		wantCode int
	}{
		{"new reaction", cm.GetID(), "eyes", http.StatusCreated},
		{"same again answers the existing one", cm.GetID(), "eyes", http.StatusOK},
		{"another content", cm.GetID(), "+1", http.StatusCreated},
		{"unknown content", cm.GetID(), "shrug", http.StatusUnprocessableEntity},
		{"no such comment", cm.GetID() + 1000, "eyes", http.StatusNotFound},
	}
	var first int64
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, resp, err := f.client.Reactions.CreateIssueCommentReaction(c, owner, name, tt.comment, tt.content)
			require.NotNil(t, resp)
			assert.Equal(t, tt.wantCode, resp.StatusCode)
			if tt.wantCode >= 300 {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.content, r.GetContent())
			if tt.content == "eyes" {
				if first == 0 {
					first = r.GetID()
				}
				assert.Equal(t, first, r.GetID(), "the existing reaction comes back")
			}
		})
	}
	got := f.srv.Reactions(owner+"/"+name, cm.GetID())
	require.Len(t, got, 2)
	assert.Equal(t, "eyes", got[0].Content)
	assert.Equal(t, "+1", got[1].Content)
}
