package providers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/require"
)

// wireServer is an httptest server that answers with a queue of canned
// replies and records every request body.
type wireServer struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []map[string]any
	headers []http.Header
	paths   []string
	replies []reply
}

type reply struct {
	status  int
	headers map[string]string
	body    string
	delay   time.Duration
}

func newWireServer(t *testing.T, replies ...reply) *wireServer {
	t.Helper()
	ws := &wireServer{replies: replies}
	ws.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		ws.mu.Lock()
		ws.bodies = append(ws.bodies, body)
		ws.headers = append(ws.headers, r.Header.Clone())
		ws.paths = append(ws.paths, r.URL.Path)
		var rep reply
		if len(ws.replies) == 0 {
			rep = reply{status: 599, body: `{"error":{"message":"test server has no reply left"}}`}
		} else {
			rep, ws.replies = ws.replies[0], ws.replies[1:]
		}
		ws.mu.Unlock()
		if rep.delay > 0 {
			time.Sleep(rep.delay)
		}
		w.Header().Set("Content-Type", "application/json")
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, rep.body)
	}))
	t.Cleanup(ws.Close)
	return ws
}

func (ws *wireServer) count() int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.bodies)
}

func (ws *wireServer) body(i int) map[string]any {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.bodies[i]
}

func (ws *wireServer) rawBody(t *testing.T, i int) string {
	t.Helper()
	b, err := json.Marshal(ws.body(i))
	require.NoError(t, err)
	return string(b)
}

// anthropicToolReply is a Messages API answer carrying input in a
// tool_use block.
func anthropicToolReply(tool, input string) reply {
	return reply{status: 200, body: fmt.Sprintf(`{
  "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
  "content": [{"type": "tool_use", "id": "toolu_01", "name": %q, "input": %s}],
  "stop_reason": "tool_use",
  "usage": {"input_tokens": 120, "output_tokens": 40}
}`, tool, input)}
}

// openaiReply is a chat completion whose message content is content.
func openaiReply(content string) reply {
	c, _ := json.Marshal(content)
	return reply{status: 200, body: fmt.Sprintf(`{
  "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
  "choices": [{"index": 0, "message": {"role": "assistant", "content": %s}, "finish_reason": "stop"}],
  "usage": {"prompt_tokens": 100, "completion_tokens": 30, "total_tokens": 130}
}`, c)}
}

// staticPrompts renders every template to fixed prompts naming the
// template.
func staticPrompts() llm.Renderer {
	return llm.RenderFunc(func(name string, vars map[string]any) (string, string, error) {
		return "You are a careful assistant for " + name + ".", fmt.Sprintf("Classify: %v", vars["Title"]), nil
	})
}

const validClassification = `{"type":"bug_fix","affected_modules":["brake"],"estimated_scope":{"files":2,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"small fix"}`

const invalidComplexity = `{"type":"bug_fix","affected_modules":["brake"],"estimated_scope":{"files":2,"interfaces":0,"complexity":"huge"},"safety_affecting":false,"rationale":"small fix"}`

// messageText is a wire message's text, whether its content is a string
// (OpenAI) or a list of content blocks (Anthropic).
func messageText(t *testing.T, m any) string {
	t.Helper()
	msg, ok := m.(map[string]any)
	require.True(t, ok, "message is an object: %v", m)
	switch c := msg["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, block := range c {
			if bm, ok := block.(map[string]any); ok {
				if s, ok := bm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	t.Fatalf("message content of unexpected shape: %v", msg["content"])
	return ""
}
