package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultAnthropicBaseURL is the public Anthropic API.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// anthropicVersion is the Messages API version header value.
const anthropicVersion = "2023-06-01"

// maxResponseBytes bounds how much of a provider answer is read.
const maxResponseBytes = 32 << 20

// Anthropic speaks the Anthropic Messages API. Structured output is obtained
// by forcing a single tool whose input_schema is the requested schema and
// reading the tool_use block's input.
type Anthropic struct {
	BaseURL    string // without /v1; DefaultAnthropicBaseURL when empty
	APIKey     string
	Model      string // default model
	HTTPClient *http.Client
	now        func() time.Time
}

type anthropicRequest struct {
	Model      string             `json:"model"`
	MaxTokens  int                `json:"max_tokens"`
	System     string             `json:"system,omitempty"`
	Messages   []anthropicMessage `json:"messages"`
	Tools      []anthropicTool    `json:"tools,omitempty"`
	ToolChoice *anthropicChoice   `json:"tool_choice,omitempty"`
}

type anthropicMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type anthropicResponse struct {
	Model   string `json:"model"`
	Content []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason string `json:"stop_reason"`
	Usage      struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

// Complete implements Provider.
func (a *Anthropic) Complete(ctx context.Context, req Request) (Response, error) {
	model := req.Model
	if model == "" {
		model = a.Model
	}
	body := anthropicRequest{Model: model, MaxTokens: req.MaxTokens, System: req.System}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, anthropicMessage{Role: string(m.Role), Content: m.Content})
	}
	if req.Schema != nil {
		body.Tools = []anthropicTool{{
			Name:        req.SchemaName,
			Description: "Record the answer. The input must match the schema exactly.",
			InputSchema: req.Schema,
		}}
		body.ToolChoice = &anthropicChoice{Type: "tool", Name: req.SchemaName}
	}
	headers := http.Header{}
	headers.Set("x-api-key", a.APIKey)
	headers.Set("anthropic-version", anthropicVersion)
	base := a.BaseURL
	if base == "" {
		base = DefaultAnthropicBaseURL
	}
	raw, err := postJSON(ctx, "anthropic", a.HTTPClient, a.now, strings.TrimRight(base, "/")+"/v1/messages", headers, body)
	if err != nil {
		return Response{}, err
	}
	var ar anthropicResponse
	if err := json.Unmarshal(raw, &ar); err != nil {
		return Response{}, &MalformedError{Provider: "anthropic", Reason: fmt.Sprintf("response body is not a Messages API answer: %v", err), Raw: string(raw)}
	}
	out := Response{Model: ar.Model, InputTokens: ar.Usage.InputTokens, OutputTokens: ar.Usage.OutputTokens}
	if req.Schema == nil {
		var text strings.Builder
		for _, c := range ar.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
		out.Text = text.String()
		return out, nil
	}
	for _, c := range ar.Content {
		if c.Type == "tool_use" && c.Name == req.SchemaName {
			if len(bytes.TrimSpace(c.Input)) == 0 {
				return out, &MalformedError{Provider: "anthropic", Reason: "tool_use block has no input"}
			}
			out.Content = c.Input
			return out, nil
		}
	}
	var text strings.Builder
	for _, c := range ar.Content {
		text.WriteString(c.Text)
	}
	return out, &MalformedError{
		Provider: "anthropic",
		Reason:   fmt.Sprintf("no tool_use block named %q in the answer (stop_reason %q)", req.SchemaName, ar.StopReason),
		Raw:      text.String(),
	}
}

// postJSON POSTs body as JSON and returns the 2xx response body; non-2xx
// answers and transport failures become *ProviderError.
func postJSON(ctx context.Context, provider string, client *http.Client, now func() time.Time, url string, headers http.Header, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s provider: encode request: %w", provider, err)
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("%s provider: build request for %s: %w", provider, url, err)
	}
	httpReq.Header = headers.Clone()
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(httpReq)
	if err != nil {
		return nil, transportError(ctx, provider, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, transportError(ctx, provider, fmt.Errorf("read response: %w", err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if now == nil {
			now = time.Now
		}
		return nil, classifyStatus(provider, resp, raw, now())
	}
	return raw, nil
}
