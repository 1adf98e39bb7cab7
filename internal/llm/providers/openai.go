package providers

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// DefaultOpenAIBaseURL is the public OpenAI API (including /v1).
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAI speaks the OpenAI Chat Completions API with the official SDK's
// request and response types, and the Responses API for the models the
// table marks "mode": "responses" (which /chat/completions refuses). Ollama, vLLM and llama.cpp's server serve
// the same API: Flavor says which server it is, because they accept
// different parameters. Structured output uses response_format
// json_schema in strict mode; answers are still read leniently (prose,
// fences, <think> blocks) because local servers may not enforce it.
type OpenAI struct {
	BaseURL string // including /v1; DefaultOpenAIBaseURL when empty
	APIKey  string // sent as a Bearer token when not empty
	Model   string // default model
	// Flavor is ProviderOpenAI (also when empty), ProviderOllama or
	// ProviderVLLM.
	Flavor string
	// ReasoningEffort, when set, is sent to OpenAI's reasoning models
	// (reasoning_effort, or reasoning.effort on the Responses API):
	// none, minimal, low, medium, high, xhigh or max.
	ReasoningEffort string
	// Models is consulted for retirement and for the API a model needs
	// (chat completions or responses); nil means the built-in table.
	Models *llm.ModelTable
	// Stream asks OpenAI's own API for streamed answers; IdleTimeout then
	// bounds their silence (DefaultStreamIdleTimeout when 0) instead of
	// HTTPClient's Timeout. Local servers are never streamed.
	Stream      bool
	IdleTimeout time.Duration
	HTTPClient  *http.Client
	now         func() time.Time
}

func (o *OpenAI) name() string { return cmp.Or(o.Flavor, llm.ProviderOpenAI) }

// openaiParams renders req as the SDK's ChatCompletionNewParams for
// flavor. OpenAI's own API gets max_completion_tokens (reasoning models
// refuse max_tokens, and it is the documented parameter for every model),
// a developer message for reasoning models and prompt_cache_key; local
// servers get the long-standing max_tokens and nothing they may reject.
func openaiParams(req llm.Request, model, flavor string) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	official := flavor == "" || flavor == llm.ProviderOpenAI
	reasoning := official && llm.IsReasoningModel(model)
	if req.System != "" {
		if reasoning {
			p.Messages = append(p.Messages, openai.DeveloperMessage(req.System))
		} else {
			p.Messages = append(p.Messages, openai.SystemMessage(req.System))
		}
	}
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		} else {
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if req.MaxTokens > 0 {
		if official {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if official && req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	if req.Schema != nil {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name: req.SchemaName, Strict: param.NewOpt(true), Schema: req.Schema,
			},
		}}
	}
	return p
}

// Complete implements llm.Provider.
func (o *OpenAI) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	model := cmp.Or(req.Model, o.Model)
	name := o.name()
	official := o.Flavor == "" || o.Flavor == llm.ProviderOpenAI
	var info llm.ModelInfo
	if official {
		var err error
		if info, err = llm.ModelFacts(o.Models, model, o.now); err != nil {
			return llm.Response{}, err
		}
	}
	headers := http.Header{}
	if o.APIKey != "" {
		headers.Set("Authorization", "Bearer "+o.APIKey)
	}
	if official && info.Mode == llm.ModeResponses {
		return o.completeResponses(ctx, req, model, headers)
	}
	body := openaiParams(req, model, o.Flavor)
	if official && o.ReasoningEffort != "" && llm.IsReasoningModel(model) {
		body.ReasoningEffort = shared.ReasoningEffort(o.ReasoningEffort)
	}
	base := cmp.Or(o.BaseURL, DefaultOpenAIBaseURL)
	url := strings.TrimRight(base, "/") + "/chat/completions"
	stream := official && o.Stream
	if stream {
		// Usage arrives in the last chunk only when asked for.
		body.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	}
	s, err := postAnswer(ctx, endpoint{provider: name, client: o.HTTPClient, now: o.now, url: url, headers: headers}, body, stream, o.IdleTimeout)
	if err != nil {
		return llm.Response{}, err
	}
	defer s.close()
	cc, err := openaiChatCompletion(name, s)
	if err != nil {
		return llm.Response{}, err
	}
	out := llm.Response{
		Model: cc.Model,
		// prompt_tokens includes the cached ones; OpenAI charges no cache
		// writes, so only reads are reported.
		InputTokens:     int(cc.Usage.PromptTokens),
		CacheReadTokens: int(cc.Usage.PromptTokensDetails.CachedTokens),
		OutputTokens:    int(cc.Usage.CompletionTokens),
		Stop:            llm.StopComplete,
	}
	if len(cc.Choices) == 0 {
		return out, &llm.MalformedError{Provider: name, Reason: "answer has no choices"}
	}
	choice := cc.Choices[0]
	switch {
	case strings.TrimSpace(choice.Message.Refusal) != "":
		out.Stop, out.Refusal = llm.StopRefused, strings.TrimSpace(choice.Message.Refusal)
		return out, nil
	case choice.FinishReason == "content_filter":
		out.Stop, out.Refusal = llm.StopRefused, "the answer was withheld by the provider's content filter"
		return out, nil
	case choice.FinishReason == "length":
		out.Stop = llm.StopTruncated
	}
	content := choice.Message.Content
	if req.Schema == nil {
		out.Text = llm.StripThink(content)
		return out, nil
	}
	doc, ok := llm.ExtractJSON(content)
	switch {
	case ok:
		out.Content = doc
	case out.Stop == llm.StopTruncated:
		// The gateway handles truncation on its own terms.
	case strings.TrimSpace(content) == "":
		return out, &llm.MalformedError{Provider: name, Reason: fmt.Sprintf("choices[0].message.content is empty (finish_reason %q)", choice.FinishReason)}
	default:
		return out, &llm.MalformedError{Provider: name, Reason: "choices[0].message.content holds no JSON object", Raw: content}
	}
	return out, nil
}
