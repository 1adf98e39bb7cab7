package providers

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/cogworks/cogworks/internal/llm"
)

// DefaultAnthropicBaseURL is the public Anthropic API.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// anthropicVersion is the Messages API version header value.
const anthropicVersion = "2023-06-01"

// maxResponseBytes bounds how much of a provider answer is read.
const maxResponseBytes = 32 << 20

// Anthropic speaks the Anthropic Messages API with the official SDK's
// request and response types. Structured output is obtained by forcing a
// single tool whose input_schema is the requested schema and reading the
// tool_use block's input — or, for models the table marks as refusing a
// forced tool_choice, native structured output (output_config.format)
// read from the text block. Answers may be streamed. The stable prefix (tool, system prompt) carries
// a cache_control mark, and so does the conversation's last turn on a
// retry, so repeats read the prompt cache at a tenth of the input price.
type Anthropic struct {
	BaseURL string // without /v1; DefaultAnthropicBaseURL when empty
	APIKey  string
	Model   string // default model
	// Models is consulted for retirement and structured-output style;
	// nil means the built-in table.
	Models *llm.ModelTable
	// Stream asks for a streamed answer; IdleTimeout then bounds its
	// silence (DefaultStreamIdleTimeout when 0) instead of HTTPClient's
	// Timeout.
	Stream      bool
	IdleTimeout time.Duration
	HTTPClient  *http.Client
	now         func() time.Time
}

// anthropicParams renders req as the SDK's MessageNewParams. Structured
// output forces a single tool whose input_schema is the schema, except
// for models the table marks as refusing a forced tool_choice (native
// is true): those get Anthropic's native structured output,
// output_config.format json_schema, and answer in a text block.
func anthropicParams(req llm.Request, model string, native bool) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: int64(req.MaxTokens)}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	for i, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		rest := m.Content
		if m.CacheBreak > 0 && m.CacheBreak < len(m.Content) {
			// The shared part (code under review, a generation's context)
			// is its own block with a cache mark, so calls that differ only
			// after it read it from the cache.
			shared := anthropic.NewTextBlock(m.Content[:m.CacheBreak])
			shared.OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
			blocks = append(blocks, shared)
			rest = m.Content[m.CacheBreak:]
		}
		block := anthropic.NewTextBlock(rest)
		// A message that is all shared part is cached whole. On a retry,
		// mark the latest turn too: the next retry then reads the whole
		// conversation so far from the cache.
		if (m.CacheBreak > 0 && m.CacheBreak >= len(m.Content)) || (len(req.Messages) > 1 && i == len(req.Messages)-1) {
			block.OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		blocks = append(blocks, block)
		if m.Role == llm.RoleAssistant {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	if req.Schema != nil {
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return p, fmt.Errorf("anthropic provider: schema %s: %w", req.SchemaName, err)
		}
		if native {
			p.OutputConfig = anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: schema}}
			return p, nil
		}
		in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if r, ok := schema["required"].([]any); ok {
			for _, name := range r {
				if s, ok := name.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "type" && k != "properties" && k != "required" {
				in.ExtraFields[k] = v
			}
		}
		p.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        req.SchemaName,
			Description: param.NewOpt("Record the answer. The input must match the schema exactly."),
			InputSchema: in,
		}}}
		p.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: req.SchemaName}}
	}
	return p, nil
}

// Complete implements llm.Provider.
func (a *Anthropic) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	model := cmp.Or(req.Model, a.Model)
	info, err := llm.ModelFacts(a.Models, model, a.now)
	if err != nil {
		return llm.Response{}, err
	}
	body, err := anthropicParams(req, model, info.RefusesForcedToolChoice)
	if err != nil {
		return llm.Response{}, err
	}
	headers := http.Header{}
	headers.Set("x-api-key", a.APIKey)
	headers.Set("anthropic-version", anthropicVersion)
	base := cmp.Or(a.BaseURL, DefaultAnthropicBaseURL)
	s, err := postAnswer(ctx, endpoint{provider: "anthropic", client: a.HTTPClient, now: a.now,
		url: strings.TrimRight(base, "/") + "/v1/messages", headers: headers}, body, a.Stream, a.IdleTimeout)
	if err != nil {
		return llm.Response{}, err
	}
	defer s.close()
	msg, err := anthropicMessage(s)
	if err != nil {
		return llm.Response{}, err
	}
	u := msg.Usage
	out := llm.Response{
		Model: string(msg.Model),
		// input_tokens excludes the cached parts; CogWorks counts all input.
		InputTokens:      int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens),
		CacheReadTokens:  int(u.CacheReadInputTokens),
		CacheWriteTokens: int(u.CacheCreationInputTokens),
		OutputTokens:     int(u.OutputTokens),
		Stop:             llm.StopComplete,
	}
	var text strings.Builder
	for _, c := range msg.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	switch msg.StopReason {
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		out.Stop = llm.StopTruncated
	case anthropic.StopReasonRefusal:
		out.Stop = llm.StopRefused
		out.Refusal = cmp.Or(strings.TrimSpace(msg.StopDetails.Explanation), strings.TrimSpace(text.String()), "no explanation given")
		return out, nil
	}
	if req.Schema == nil {
		out.Text = text.String()
		return out, nil
	}
	for _, c := range msg.Content {
		if c.Type == "tool_use" && c.Name == req.SchemaName {
			if len(bytes.TrimSpace(c.Input)) == 0 {
				return out, &llm.MalformedError{Provider: "anthropic", Reason: "tool_use block has no input"}
			}
			out.Content = c.Input
			return out, nil
		}
	}
	if out.Stop == llm.StopTruncated {
		// Cut off before (or inside) the tool call: the gateway handles
		// truncation on its own terms.
		return out, nil
	}
	// Native structured output answers in text; a proxy or model that
	// ignored tool_choice may still have written the object as text.
	if doc, ok := llm.ExtractJSON(text.String()); ok {
		out.Content = doc
		return out, nil
	}
	reason := fmt.Sprintf("no tool_use block named %q in the answer (stop_reason %q)", req.SchemaName, msg.StopReason)
	if info.RefusesForcedToolChoice {
		reason = fmt.Sprintf("the text answer holds no JSON object (stop_reason %q)", msg.StopReason)
	}
	return out, &llm.MalformedError{
		Provider: "anthropic",
		Reason:   reason,
		Raw:      text.String(),
	}
}
