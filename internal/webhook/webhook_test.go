package webhook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture reads a real payload from ../shared/fixtures/github-webhooks.
func fixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	path := filepath.Join(append([]string{"..", "..", "..", "shared", "fixtures", "github-webhooks"}, parts...)...)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("fixture %s not present", path)
	}
	require.NoError(t, err)
	return b
}

func TestParseRealPayloads(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", "github-webhooks")
	for _, event := range []string{"issues", "issue_comment", "pull_request"} {
		entries, err := os.ReadDir(filepath.Join(dir, event))
		if os.IsNotExist(err) {
			t.Skipf("fixtures not present in %s", dir)
		}
		require.NoError(t, err)
		for _, e := range entries {
			if filepath.Ext(e.Name()) != ".json" {
				continue
			}
			t.Run(event+"/"+e.Name(), func(t *testing.T) {
				p, err := Parse(fixture(t, event, e.Name()))
				require.NoError(t, err)
				assert.NotEmpty(t, p.Repo.Owner)
				n, _, ignore, err := p.WorkItem()
				require.NoError(t, err)
				if ignore == "" {
					assert.Positive(t, n)
				}
				if event != "pull_request" {
					require.NotNil(t, p.Issue)
					assert.Equal(t, n, p.Issue.Number)
					assert.NotNil(t, p.Issue.Labels, "labels are never nil, so an empty list means none")
				}
				if event == "issue_comment" {
					require.NotNil(t, p.Comment)
					assert.NotZero(t, p.Comment.ID)
				}
			})
		}
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name, in, errSub string
	}{
		{"not JSON", `{`, "not a JSON"},
		{"no repository", `{"action":"opened","issue":{"number":1}}`, "repository.full_name"},
		{"bad repository", `{"repository":{"full_name":"nope"}}`, "repository.full_name"},
		{"bad issue number", `{"repository":{"full_name":"o/r"},"issue":{"number":0}}`, "issue.number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errSub)
		})
	}
}

func TestWorkItemOfAPullRequest(t *testing.T) {
	tests := []struct {
		head      string
		n         int
		ignore    bool
		errSubstr string
	}{
		{"cogworks/42/spec", 42, false, ""},
		{"cogworks/7/swi-2", 7, false, ""},
		{"feature/x", 0, true, ""},
		{"cogworks/0/spec", 0, false, "bad work item number"},
	}
	for _, tt := range tests {
		t.Run(tt.head, func(t *testing.T) {
			p := Payload{PullRequest: &PullRequest{Number: 3, HeadRef: tt.head}}
			n, merges, ignore, err := p.WorkItem()
			if tt.errSubstr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.errSubstr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.n, n)
			assert.Equal(t, tt.ignore, ignore != "")
			assert.Equal(t, !tt.ignore, merges)
		})
	}
}
