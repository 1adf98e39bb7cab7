package llm

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxExtractStarts bounds how many '{' positions ExtractJSON tries, so a
// long answer full of braces costs linear work, not quadratic.
const maxExtractStarts = 64

// ExtractJSON finds the JSON object in a model's answer the way
// non-strict OpenAI-compatible servers (Ollama, vLLM without guided
// decoding, llama.cpp) return it: bare, inside a Markdown fence, after
// prose, followed by trailing text, or after a <think>…</think> reasoning
// block. It returns the first complete object and whether one was found;
// the schema check comes after.
func ExtractJSON(s string) (json.RawMessage, bool) {
	s = StripThink(s)
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t), true
	}
	// Fenced blocks first: a model that fences its answer may also quote
	// braces in the prose around it.
	for rest := s; ; {
		open := strings.Index(rest, "```")
		if open < 0 {
			break
		}
		body := rest[open+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[\"") {
			body = body[nl+1:] // the info string (json, JSON, …)
		}
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		if c := strings.TrimSpace(body[:end]); strings.HasPrefix(c, "{") && json.Valid([]byte(c)) {
			return json.RawMessage(c), true
		}
		rest = body[end+3:]
	}
	starts := 0
	for i := 0; i < len(s) && starts < maxExtractStarts; i++ {
		if s[i] != '{' {
			continue
		}
		starts++
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		var v json.RawMessage
		if dec.Decode(&v) == nil && bytes.HasPrefix(v, []byte("{")) {
			return v, true
		}
	}
	return nil, false
}

// StripThink removes <think>…</think> blocks (reasoning models served by
// Ollama and vLLM put them before the answer). An unclosed block means the
// answer never came, so everything from it on is dropped.
func StripThink(s string) string {
	for {
		open := strings.Index(s, "<think>")
		if open < 0 {
			return s
		}
		end := strings.Index(s[open:], "</think>")
		if end < 0 {
			return s[:open]
		}
		s = s[:open] + s[open+end+len("</think>"):]
	}
}
