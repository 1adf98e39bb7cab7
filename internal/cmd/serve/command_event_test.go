package serve

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/server"
)

// TestServeJobCommandEvent: a job is a comment event only when one of its
// coalesced comments is a new /cogworks command by a person.
func TestServeJobCommandEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		comments []server.CommentEvent
		want     bool
	}{
		{"no comments", nil, false},
		{"a command", []server.CommentEvent{{ID: 1, Action: "created", Body: "/cogworks stop", User: "alice", UserType: "User"}}, true},
		{"coalesced, one command", []server.CommentEvent{{ID: 1, Action: "created", Body: "hi", UserType: "User"}, {ID: 2, Action: "created", Body: "/cogworks retry", UserType: "User"}}, true},
		{"an edit", []server.CommentEvent{{ID: 1, Action: "edited", Body: "/cogworks stop", UserType: "User"}}, false},
		{"a bot", []server.CommentEvent{{ID: 1, Action: "created", Body: "/cogworks stop", UserType: "Bot"}}, false},
		{"quoted", []server.CommentEvent{{ID: 1, Action: "created", Body: "> /cogworks stop", UserType: "User"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, commandEvent(tt.comments))
		})
	}
}
