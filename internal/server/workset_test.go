package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
)

// TestWorkSet drives the pending set with plain scripts: "add I/N" offers
// a delivery for issue N of installation I (a trailing "+pr" sets
// CheckMerges, "+c" adds a comment), "take" starts the oldest waiting
// item, "done I/N" ends its run. want lists each step's result: the add
// result, the job taken ("I/N" with its flags) or "-" for none.
func TestWorkSet(t *testing.T) {
	tests := []struct {
		name  string
		limit int
		steps []string
		want  []string
		// waiting and running are the counts at the end.
		waiting, running int
	}{
		{
			name: "deliveries for a waiting item merge and take no slot", limit: 2,
			steps:   []string{"add 1/1", "add 1/1+pr", "add 1/1", "add 1/2", "take"},
			want:    []string{"queued", "merged", "merged", "queued", "1/1 pr"},
			waiting: 1, running: 1,
		},
		{
			name: "the bound counts items, not deliveries", limit: 2,
			steps:   []string{"add 1/1", "add 1/2", "add 1/1", "add 1/2", "add 1/3", "add 1/1"},
			want:    []string{"queued", "queued", "merged", "merged", "queue_full", "merged"},
			waiting: 2,
		},
		{
			name: "a running item is marked to run once more, however many deliveries", limit: 1,
			steps: []string{"add 1/1", "take", "add 1/1", "add 1/1+c", "add 1/1+pr", "done 1/1", "done 1/1"},
			want:  []string{"queued", "1/1", "rerun", "rerun", "rerun", "1/1 pr c1", "-"},
		},
		{
			name: "a running item takes no slot, so a new one still fits", limit: 1,
			steps:   []string{"add 1/1", "take", "add 1/2", "add 1/1", "take"},
			want:    []string{"queued", "1/1", "queued", "rerun", "1/2"},
			running: 2,
		},
		{
			name: "the same issue number under another installation is another item", limit: 5,
			steps:   []string{"add 1/1", "add 2/1", "take", "take", "take"},
			want:    []string{"queued", "queued", "1/1", "2/1", "-"},
			running: 2,
		},
		{
			name: "items are taken oldest first and leave when done", limit: 3,
			steps: []string{"add 1/3", "add 1/1", "add 1/2", "take", "take", "done 1/3", "take", "done 1/1", "done 1/2"},
			want:  []string{"queued", "queued", "queued", "1/3", "1/1", "-", "1/2", "-", "-"},
		},
		{
			name: "an item done waits again on its next delivery", limit: 1,
			steps:   []string{"add 1/1", "take", "done 1/1", "add 1/1", "add 1/2"},
			want:    []string{"queued", "1/1", "-", "queued", "queue_full"},
			waiting: 1,
		},
		{
			name: "comments are kept up to the cap", limit: 1,
			steps:   []string{"add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "add 1/1+c", "take"},
			want:    []string{"queued", "merged", "merged", "merged", "merged", "merged", "merged", "merged", "merged", "merged", fmt.Sprintf("1/1 c%d", maxComments)},
			running: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Len(t, tt.want, len(tt.steps), "the script and its expectations")
			w := newWorkSet(tt.limit)
			for i, step := range tt.steps {
				verb, arg, _ := strings.Cut(step, " ")
				var got string
				switch verb {
				case "add":
					got = w.add(scriptJob(t, arg)).String()
				case "take":
					got = describeJob(w.take())
				case "done":
					got = describeJob(w.done(scriptJob(t, arg).itemKey()))
				default:
					t.Fatalf("unknown step %q", step)
				}
				assert.Equal(t, tt.want[i], got, "step %d: %s", i, step)
			}
			assert.Equal(t, tt.waiting, w.waitingLen(), "waiting items")
			assert.Len(t, w.waitingItems(), tt.waiting)
			assert.Equal(t, tt.running, w.runningLen(), "running items")
		})
	}
}

// scriptJob parses "I/N[+pr][+c]".
func scriptJob(t *testing.T, s string) Job {
	t.Helper()
	parts := strings.Split(s, "+")
	var inst int64
	var n int
	_, err := fmt.Sscanf(parts[0], "%d/%d", &inst, &n)
	require.NoError(t, err, s)
	j := Job{Installation: inst, Repo: github.Repo{Owner: "acme", Name: "widgets"}, Issue: n}
	for _, f := range parts[1:] {
		switch f {
		case "pr":
			j.CheckMerges = true
		case "c":
			j.Comments = []CommentEvent{{ID: 1, Action: "created", Body: "/cogworks retry", User: "alice", UserType: "User"}}
		default:
			t.Fatalf("unknown flag %q in %q", f, s)
		}
	}
	return j
}

func describeJob(j Job, ok bool) string {
	if !ok {
		return "-"
	}
	s := fmt.Sprintf("%d/%d", j.Installation, j.Issue)
	if j.CheckMerges {
		s += " pr"
	}
	if len(j.Comments) > 0 {
		s += fmt.Sprintf(" c%d", len(j.Comments))
	}
	return s
}
