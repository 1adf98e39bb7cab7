package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/github"
)

// The payloads in testdata/events are GitHub's own examples (octokit/webhooks),
// copied unchanged except pull_request.cogworks-merged, whose head branch was
// renamed to a CogWorks branch.
func TestParseEventRealPayloads(t *testing.T) {
	hello := github.Repo{Owner: "Codertocat", Name: "Hello-World"}
	tests := []struct {
		file   string
		want   EventTarget
		ignore bool
		errSub string
	}{
		{file: "labeled.payload.json", want: EventTarget{Repo: hello, Issue: 1}},
		{file: "created.payload.json", want: EventTarget{Repo: hello, Issue: 1}},
		{file: "closed.payload.json", ignore: true},
		{file: "pull_request.cogworks-merged.payload.json", want: EventTarget{Repo: hello, Issue: 1, CheckMerges: true}},
		{file: "ping.payload.json", errSub: "neither issue nor pull_request"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ReadEvent(filepath.Join("testdata", "events", tt.file))
			if tt.errSub != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errSub)
				assert.Contains(t, err.Error(), tt.file, "error names the file")
				return
			}
			require.NoError(t, err)
			if tt.ignore {
				assert.NotEmpty(t, got.Ignore)
				assert.Contains(t, got.Ignore, "changes", "names the foreign head branch")
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseEventBadInput(t *testing.T) {
	tests := []struct {
		name, body, errSub string
	}{
		{"not json", "{", "not a JSON GitHub event payload"},
		{"no repository", `{"issue":{"number":3}}`, "repository.full_name"},
		{"bad repository", `{"repository":{"full_name":"nope"},"issue":{"number":3}}`, "repository.full_name"},
		{"bad issue number", `{"repository":{"full_name":"a/b"},"issue":{"number":0}}`, "issue.number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvent([]byte(tt.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errSub)
		})
	}
	_, err := ReadEvent(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
