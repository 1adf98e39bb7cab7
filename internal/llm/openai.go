package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DefaultOpenAIBaseURL is the public OpenAI API (including /v1).
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAI speaks the OpenAI Chat Completions API, which Ollama, vLLM and
// llama.cpp's server also serve: point BaseURL at them (for example
// http://127.0.0.1:11434/v1). Structured output uses response_format
// json_schema with strict mode.
type OpenAI struct {
	BaseURL    string // including /v1; DefaultOpenAIBaseURL when empty
	APIKey     string // sent as a Bearer token when not empty
	Model      string // default model
	HTTPClient *http.Client
	now        func() time.Time
}

type openaiRequest struct {
	Model          string          `json:"model"`
	Messages       []openaiMessage `json:"messages"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *openaiFormat   `json:"response_format,omitempty"`
}

type openaiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openaiFormat struct {
	Type       string           `json:"type"`
	JSONSchema openaiJSONSchema `json:"json_schema"`
}

type openaiJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

type openaiResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Complete implements Provider.
func (o *OpenAI) Complete(ctx context.Context, req Request) (Response, error) {
	model := req.Model
	if model == "" {
		model = o.Model
	}
	body := openaiRequest{Model: model, MaxTokens: req.MaxTokens}
	if req.System != "" {
		body.Messages = append(body.Messages, openaiMessage{Role: "system", Content: req.System})
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, openaiMessage{Role: string(m.Role), Content: m.Content})
	}
	if req.Schema != nil {
		body.ResponseFormat = &openaiFormat{
			Type:       "json_schema",
			JSONSchema: openaiJSONSchema{Name: req.SchemaName, Schema: req.Schema, Strict: true},
		}
	}
	headers := http.Header{}
	if o.APIKey != "" {
		headers.Set("Authorization", "Bearer "+o.APIKey)
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	raw, err := postJSON(ctx, "openai", o.HTTPClient, o.now, strings.TrimRight(base, "/")+"/chat/completions", headers, body)
	if err != nil {
		return Response{}, err
	}
	var or openaiResponse
	if err := json.Unmarshal(raw, &or); err != nil {
		return Response{}, &MalformedError{Provider: "openai", Reason: fmt.Sprintf("response body is not a chat completion: %v", err), Raw: string(raw)}
	}
	out := Response{Model: or.Model, InputTokens: or.Usage.PromptTokens, OutputTokens: or.Usage.CompletionTokens}
	if len(or.Choices) == 0 {
		return out, &MalformedError{Provider: "openai", Reason: "answer has no choices"}
	}
	msg := or.Choices[0].Message
	if msg.Refusal != nil && *msg.Refusal != "" {
		return out, &MalformedError{Provider: "openai", Reason: "model refused: " + *msg.Refusal, Raw: *msg.Refusal}
	}
	if msg.Content == nil {
		return out, &MalformedError{Provider: "openai", Reason: fmt.Sprintf("choices[0].message.content is empty (finish_reason %q)", or.Choices[0].FinishReason)}
	}
	if req.Schema == nil {
		out.Text = *msg.Content
		return out, nil
	}
	content := stripCodeFence(*msg.Content)
	if !json.Valid([]byte(content)) {
		return out, &MalformedError{Provider: "openai", Reason: "choices[0].message.content is not valid JSON", Raw: *msg.Content}
	}
	out.Content = json.RawMessage(content)
	return out, nil
}

// stripCodeFence removes one surrounding Markdown code fence (```json …
// ```), which some OpenAI-compatible servers add despite response_format.
func stripCodeFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	t = strings.TrimSuffix(t[3:], "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 && !bytes.ContainsAny([]byte(t[:nl]), "{[\"") {
		t = t[nl+1:]
	}
	return strings.TrimSpace(t)
}
