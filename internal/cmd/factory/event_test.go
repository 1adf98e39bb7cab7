package factory_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
)

// The payloads in testdata/events are GitHub's own examples (octokit/webhooks),
// copied unchanged except pull_request.cogworks-merged, whose head branch was
// renamed to a CogWorks branch, and the *.cogworks-run payloads, whose issue
// got the cogworks:run label added to its labels.
func TestParseEventRealPayloads(t *testing.T) {
	t.Parallel()
	hello := github.Repo{Owner: "Codertocat", Name: "Hello-World"}
	tests := []struct {
		file   string
		want   factory.EventTarget
		ignore string
		errSub string
	}{
		{file: "issues.labeled.cogworks-run.payload.json", want: factory.EventTarget{Repo: hello, Issue: 1}},
		{file: "issue_comment.created.command.payload.json", want: factory.EventTarget{Repo: hello, Issue: 1, CommentEvent: true}},
		{file: "issue_comment.created.cogworks-run.payload.json", ignore: "is not a new /cogworks command by a person"},
		{file: "labeled.payload.json", ignore: "issue #1 has no cogworks:run label"},
		{file: "issues.unlabeled.payload.json", ignore: "issue #1 has no cogworks:run label"},
		{file: "created.payload.json", ignore: "is not a new /cogworks command by a person"},
		{file: "closed.payload.json", ignore: "changes"},
		{file: "pull_request.cogworks-merged.payload.json", want: factory.EventTarget{Repo: hello, Issue: 1, CheckMerges: true, Restack: true}},
		{file: "ping.payload.json", errSub: "neither issue nor pull_request"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := factory.ReadEvent(filepath.Join("testdata", "events", tt.file))
			if tt.errSub != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errSub)
				assert.Contains(t, err.Error(), tt.file, "error names the file")
				return
			}
			require.NoError(t, err)
			if tt.ignore != "" {
				assert.Contains(t, got.Ignore, tt.ignore)
				return
			}
			if got.Known != nil {
				// The step takes the labels from the payload (no GET issue).
				assert.Contains(t, got.Known.Labels, "cogworks:run")
				assert.Equal(t, got.Issue, got.Known.Number)
				got.Known = nil
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseEventBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, errSub string
	}{
		{"not json", "{", "not a JSON GitHub event payload"},
		{"no repository", `{"issue":{"number":3}}`, "repository.full_name"},
		{"bad repository", `{"repository":{"full_name":"nope"},"issue":{"number":3}}`, "repository.full_name"},
		{"bad issue number", `{"repository":{"full_name":"a/b"},"issue":{"number":0}}`, "issue.number"},
		{"bad labels", `{"repository":{"full_name":"a/b"},"issue":{"number":3,"labels":"cogworks:run"}}`, "not a JSON GitHub event payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := factory.ParseEvent([]byte(tt.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errSub)
		})
	}
	_, err := factory.ReadEvent(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestParseEventCommentOnPullRequestWithoutLabel(t *testing.T) {
	t.Parallel()
	got, err := factory.ParseEvent([]byte(`{"action":"created","repository":{"full_name":"a/b"},"issue":{"number":7,"labels":[],"pull_request":{"url":"x"}}}`))
	require.NoError(t, err)
	assert.Equal(t, "pull request #7 has no cogworks:run label", got.Ignore)
}
