package providers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
)

// sseServer replays a recorded event stream: pause between events,
// stall (a long silence) after stallAfter events, or the connection cut
// after cutAfter events.
type sseServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

type sseScript struct {
	file       string
	pause      time.Duration
	stallAfter int // 0: never
	cutAfter   int // 0: never
}

func newSSEServer(t *testing.T, sc sseScript) *sseServer {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "streams", sc.file))
	require.NoError(t, err)
	events := strings.SplitAfter(strings.TrimSpace(string(raw)), "\n\n")
	s := &sseServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		s.mu.Lock()
		s.bodies, s.paths = append(s.bodies, body), append(s.paths, r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		flusher := w.(http.Flusher)
		for i, ev := range events {
			if sc.cutAfter > 0 && i == sc.cutAfter {
				return
			}
			if sc.stallAfter > 0 && i == sc.stallAfter {
				select {
				case <-r.Context().Done():
				case <-time.After(5 * time.Second):
				}
				return
			}
			_, _ = io.WriteString(w, strings.TrimSpace(ev)+"\n\n")
			flusher.Flush()
			time.Sleep(sc.pause)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) requests() ([]string, []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...), append([]map[string]any(nil), s.bodies...)
}

func streamProvider(kind string, s *sseServer, idle time.Duration) llm.Provider {
	if kind == "anthropic" {
		return &Anthropic{BaseURL: s.URL, APIKey: "k", HTTPClient: s.Client(), Stream: true, IdleTimeout: idle}
	}
	return &OpenAI{BaseURL: s.URL + "/v1", APIKey: "k", HTTPClient: s.Client(), Stream: true, IdleTimeout: idle}
}

var streamCases = []struct {
	name, provider, model, file, path string
	in, cacheRead, out                int
}{
	{"anthropic", "anthropic", "claude-sonnet-4-6", "anthropic_tool.sse", "/v1/messages", 12050, 10000, 100},
	{"openai chat", "openai", "gpt-5.4", "openai_chat.sse", "/v1/chat/completions", 12000, 10240, 100},
	{"openai responses", "openai", "gpt-5-pro", "openai_responses.sse", "/v1/responses", 3000, 2048, 900},
}

// TestStreamedAnswers reads recorded SSE streams of both providers (and
// the Responses API) into structured answers with their usage, the
// requests asking for a stream. Before, nothing streamed: the requests
// had no "stream" and an event stream could not be read.
func TestStreamedAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range streamCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSSEServer(t, sseScript{file: tt.file})
			g, _, _ := newTestGateway(streamProvider(tt.provider, s, 0))
			g.Model = tt.model
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, "bug_fix", string(out.Type))
			assert.Equal(t, []string{"brake"}, out.AffectedModules)
			assert.Equal(t, tt.in, rec.InputTokens)
			assert.Equal(t, tt.cacheRead, rec.CacheReadTokens)
			assert.Equal(t, tt.out, rec.OutputTokens)
			paths, bodies := s.requests()
			require.Equal(t, []string{tt.path}, paths)
			assert.Equal(t, true, bodies[0]["stream"])
			if tt.path == "/v1/chat/completions" {
				assert.Equal(t, map[string]any{"include_usage": true}, bodies[0]["stream_options"])
			}
		})
	}
}

// TestSlowStreamIsNotCutByItsLength: a stream whose events keep coming
// finishes even though it lasts far longer than the idle time-out — a
// whole-request time-out of that size would have cut it.
func TestSlowStreamIsNotCutByItsLength(t *testing.T) {
	t.Parallel()
	for _, tt := range streamCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSSEServer(t, sseScript{file: tt.file, pause: 40 * time.Millisecond})
			p := streamProvider(tt.provider, s, 150*time.Millisecond)
			start := time.Now()
			resp, err := p.Complete(context.Background(), llm.Request{Model: tt.model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}},
				Schema: json.RawMessage(`{"type":"object","properties":{}}`), SchemaName: "classification", MaxTokens: 100})
			require.NoError(t, err)
			assert.Greater(t, time.Since(start), 150*time.Millisecond, "the stream outlasted the idle time-out")
			assert.Contains(t, string(resp.Content), "bug_fix")
		})
	}
}

// TestStalledOrCutStreamIsNotResentBlindly: a stream that goes silent
// past the idle time-out, or ends before its final event, fails as a
// transient error marked Sent, and the gateway sends it once: the
// provider may have billed it. Before, a client time-out was retried up
// to four more times.
func TestStalledOrCutStreamIsNotResentBlindly(t *testing.T) {
	t.Parallel()
	for _, tt := range streamCases {
		for _, mode := range []string{"stalled", "cut"} {
			t.Run(tt.name+" "+mode, func(t *testing.T) {
				t.Parallel()
				sc := sseScript{file: tt.file, stallAfter: 2}
				if mode == "cut" {
					sc = sseScript{file: tt.file, cutAfter: 2}
				}
				s := newSSEServer(t, sc)
				g, sleeps, _ := newTestGateway(streamProvider(tt.provider, s, 100*time.Millisecond))
				g.Model = tt.model
				var out classify.Classification
				_, err := g.Structured(context.Background(), intakeCall(), &out)
				var pe *llm.ProviderError
				require.ErrorAs(t, err, &pe)
				assert.True(t, pe.Sent)
				assert.True(t, pe.Transient(), "a later invocation may try again")
				if mode == "stalled" {
					assert.Contains(t, pe.Message, "stream idle timeout")
				}
				paths, _ := s.requests()
				assert.Len(t, paths, 1, "not re-sent within the call")
				assert.Empty(t, sleeps.Recorded())
			})
		}
	}
}

// TestUnsentRequestIsStillRetried: a connection refused before anything
// was written is safe to send again.
func TestUnsentRequestIsStillRetried(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	g, sleeps, _ := newTestGateway(&Anthropic{BaseURL: url, APIKey: "k"})
	g.TransientRetries = 2
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	var pe *llm.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.False(t, pe.Sent)
	assert.Len(t, sleeps.Recorded(), 2)
}
