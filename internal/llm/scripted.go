package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Scripted is a Provider that replays a script of answers, for tests and
// `cogworks demo`. Answers are queued per key; a request consumes the next
// answer queued under its Template name, else under its SchemaName, else
// under the wildcard key "*". When no queue has an answer left the request
// fails with *ScriptExhaustedError: the script never makes up an answer.
//
// Token counts use EstimateTokens, the same estimator budgets use.
type Scripted struct {
	// Model is reported in every Response ("scripted" when empty).
	Model string

	mu       sync.Mutex
	queues   map[string][]ScriptedAnswer
	requests []Request
}

// ScriptedAnswer is one scripted reply: raw answer text (normally a JSON
// document, possibly deliberately schema-invalid or not JSON at all), or an
// error to return instead.
type ScriptedAnswer struct {
	Content string
	Err     error
	// Stop, when StopTruncated or StopRefused, replays an answer cut off at
	// the output limit or a refusal with Refusal as its text.
	Stop    StopReason
	Refusal string
}

// ScriptedWildcard is the key whose queue serves any request.
const ScriptedWildcard = "*"

// NewScripted returns an empty script.
func NewScripted() *Scripted {
	return &Scripted{queues: map[string][]ScriptedAnswer{}}
}

// Add queues raw answers under key (a template name, a schema name or
// ScriptedWildcard), in order.
func (s *Scripted) Add(key string, contents ...string) *Scripted {
	for _, c := range contents {
		s.AddAnswer(key, ScriptedAnswer{Content: c})
	}
	return s
}

// AddJSON queues v, marshalled to JSON, under key.
func (s *Scripted) AddJSON(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("script answer for %q: %w", key, err)
	}
	s.Add(key, string(b))
	return nil
}

// AddAnswer queues one answer (content or error) under key.
func (s *Scripted) AddAnswer(key string, a ScriptedAnswer) *Scripted {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queues == nil {
		s.queues = map[string][]ScriptedAnswer{}
	}
	s.queues[key] = append(s.queues[key], a)
	return s
}

// Remaining reports how many answers are still queued, per key.
func (s *Scripted) Remaining() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, q := range s.queues {
		if len(q) > 0 {
			out[k] = len(q)
		}
	}
	return out
}

// Requests returns a copy of every request received, in order.
func (s *Scripted) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ScriptExhaustedError reports a request for which no scripted answer was
// left. It is not retryable.
type ScriptExhaustedError struct {
	Template   string
	SchemaName string
	// Remaining lists the keys that still hold answers.
	Remaining []string
}

// Error implements error.
func (e *ScriptExhaustedError) Error() string {
	rem := "none"
	if len(e.Remaining) > 0 {
		rem = strings.Join(e.Remaining, ", ")
	}
	return fmt.Sprintf("scripted provider: script exhausted for template %q / schema %q (keys with answers left: %s)",
		e.Template, e.SchemaName, rem)
}

// Complete implements Provider.
func (s *Scripted) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("scripted provider: %w", err)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	answer, ok := s.pop(req.Template, req.SchemaName, ScriptedWildcard)
	var remaining []string
	if !ok {
		for k, q := range s.queues {
			if len(q) > 0 {
				remaining = append(remaining, k)
			}
		}
		sort.Strings(remaining)
	}
	s.mu.Unlock()
	if !ok {
		return Response{}, &ScriptExhaustedError{Template: req.Template, SchemaName: req.SchemaName, Remaining: remaining}
	}
	if answer.Err != nil {
		return Response{}, answer.Err
	}
	model := s.Model
	if model == "" {
		model = "scripted"
	}
	resp := Response{
		Model:        model,
		InputTokens:  EstimateRequestTokens(req),
		OutputTokens: EstimateTokens(answer.Content),
	}
	switch answer.Stop {
	case StopRefused, StopTruncated:
		resp.Stop, resp.Refusal = answer.Stop, answer.Refusal
		return resp, nil
	}
	if req.Schema == nil {
		resp.Text = answer.Content
		return resp, nil
	}
	content := strings.TrimSpace(answer.Content)
	if !json.Valid([]byte(content)) {
		return resp, &MalformedError{Provider: "scripted", Reason: "scripted answer is not valid JSON", Raw: answer.Content}
	}
	resp.Content = json.RawMessage(content)
	return resp, nil
}

// pop takes the next answer from the first non-empty queue among keys.
// The caller holds s.mu.
func (s *Scripted) pop(keys ...string) (ScriptedAnswer, bool) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		if q := s.queues[k]; len(q) > 0 {
			s.queues[k] = q[1:]
			return q[0], true
		}
	}
	return ScriptedAnswer{}, false
}
