package githubsim

import (
	"net/http"
	"slices"
)

// reactionContents are the reactions GitHub accepts.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

func (c *call) reactionJSON(r *reaction) map[string]any {
	return map[string]any{
		"id": r.id, "node_id": nodeID("REA", r.id), "user": c.userJSON(r.user),
		"content": r.content, "created_at": ts(r.created),
	}
}

// createReaction adds a reaction to an issue comment. As on GitHub, the
// same user reacting with the same content again gets the existing
// reaction back with 200 instead of 201.
func (s *Server) createReaction(c *call) {
	cm, ok := c.comment()
	if !ok {
		return
	}
	var req struct {
		Content string `json:"content"`
	}
	if !c.decode(&req) {
		return
	}
	if !slices.Contains(reactionContents, req.Content) {
		c.invalid(fieldError{Resource: "Reaction", Field: "content", Code: "invalid"})
		return
	}
	for _, r := range cm.reactions {
		if r.user == c.actor && r.content == req.Content {
			c.json(http.StatusOK, c.reactionJSON(r))
			return
		}
	}
	r := &reaction{id: s.id(), user: c.actor, content: req.Content, created: c.now}
	cm.reactions = append(cm.reactions, r)
	c.json(http.StatusCreated, c.reactionJSON(r))
}
