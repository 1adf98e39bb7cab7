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

func TestUntriggeredNeedsTheRunLabelOrACommandComment(t *testing.T) {
	tests := []struct {
		name, payload string
		command       bool
		ignore        string
	}{
		{"issue with cogworks:run",
			`{"action":"edited","issue":{"number":4,"labels":[{"name":"bug"},{"name":"cogworks:run"}]}}`, false, ""},
		{"issue without it",
			`{"action":"edited","issue":{"number":4,"labels":[{"name":"bug"}]}}`, false, "issue #4 has no cogworks:run label"},
		// A sub-work-item's issue carries its own labels, never
		// cogworks:run: the events the pipeline's status changes (and anyone
		// else's edits) cause on it cost nothing.
		{"a sub-work-item's status change",
			`{"action":"labeled","label":{"name":"cogworks:status:in-progress"},"issue":{"number":5,"labels":[{"name":"cogworks:sub-work-item"},{"name":"cogworks:order:1"},{"name":"cogworks:status:in-progress"}]}}`, false, "issue #5 has no cogworks:run label"},
		{"a sub-work-item opened by planning",
			`{"action":"opened","issue":{"number":5,"labels":[{"name":"cogworks:sub-work-item"},{"name":"cogworks:status:pending"}]}}`, false, "issue #5 has no cogworks:run label"},
		// CogWorks's own writes on the work item (the lock, a stage
		// label) echo back as events under an App identity: idle, decided
		// from the payload. Before, each cost an invocation's reads.
		{"CogWorks's own label write on a work item",
			`{"action":"labeled","label":{"name":"cogworks:processing"},"issue":{"number":4,"labels":[{"name":"cogworks:run"},{"name":"cogworks:processing"}]},"sender":{"login":"cogworks[bot]","type":"Bot"}}`, false, "issue #4 was changed by a bot (cogworks[bot]), not a person"},
		{"a person's label on a work item",
			`{"action":"labeled","label":{"name":"cogworks:approve"},"issue":{"number":4,"labels":[{"name":"cogworks:run"},{"name":"cogworks:approve"}]},"sender":{"login":"alice","type":"User"}}`, false, ""},
		{"a person's command on a stopped pipeline",
			`{"action":"created","issue":{"number":4,"labels":[]},"comment":{"id":1,"body":"/cogworks retry","user":{"login":"alice","type":"User"}}}`, true, ""},
		{"an edited command",
			`{"action":"edited","issue":{"number":4,"labels":[]},"comment":{"id":1,"body":"/cogworks retry","user":{"login":"alice","type":"User"}}}`, false, "comment 1 on #4 is not a new /cogworks command by a person"},
		{"a bot's command",
			`{"action":"created","issue":{"number":4,"labels":[]},"comment":{"id":1,"body":"/cogworks approve","user":{"login":"other[bot]","type":"Bot"}}}`, false, "comment 1 on #4 is not a new /cogworks command by a person"},
		{"a plain comment",
			`{"action":"created","issue":{"number":4,"labels":[]},"comment":{"id":1,"body":"+1","user":{"login":"alice","type":"User"}}}`, false, "comment 1 on #4 is not a new /cogworks command by a person"},
		{"a plain comment on a work item",
			`{"action":"created","issue":{"number":4,"labels":[{"name":"cogworks:run"}]},"comment":{"id":1,"body":"Looks good to me","user":{"login":"alice","type":"User"}}}`, false, "comment 1 on #4 is not a new /cogworks command by a person"},
		{"a command on a work item",
			`{"action":"created","issue":{"number":4,"labels":[{"name":"cogworks:run"}]},"comment":{"id":1,"body":"/cogworks approve","user":{"login":"alice","type":"User"}}}`, true, ""},
		{"a command on a pull request",
			`{"action":"created","issue":{"number":9,"labels":[],"pull_request":{}},"comment":{"id":1,"body":"/cogworks approve","user":{"login":"alice","type":"User"}}}`, false, "comment 1 on #9 is not a new /cogworks command by a person"},
		{"a pull_request event",
			`{"action":"closed","pull_request":{"number":9,"head":{"ref":"cogworks/4/spec"}}}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.payload[:len(tt.payload)-1] + `,"repository":{"full_name":"a/b"}}`))
			require.NoError(t, err)
			assert.Equal(t, tt.command, p.CommandComment())
			assert.Equal(t, tt.ignore, p.Untriggered())
		})
	}
}
