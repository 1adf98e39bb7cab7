package providers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// responsesParams renders req as the SDK's ResponseNewParams: the system
// prompt as instructions, the turns as input messages, structured output
// as text.format json_schema in strict mode, the limit as
// max_output_tokens (which covers reasoning tokens too). Nothing is
// stored server-side: every call carries its whole conversation.
func responsesParams(req llm.Request, model, effort string) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(model), Store: param.NewOpt(false)}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	input := make(responses.ResponseInputParam, 0, len(req.Messages))
	for _, m := range req.Messages {
		role := responses.EasyInputMessageRoleUser
		if m.Role == llm.RoleAssistant {
			role = responses.EasyInputMessageRoleAssistant
		}
		input = append(input, responses.ResponseInputItemParamOfMessage(m.Content, role))
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	if effort != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(effort)}
	}
	if req.Schema != nil {
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return p, fmt.Errorf("openai provider: schema %s: %w", req.SchemaName, err)
		}
		p.Text = responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{
				Name: req.SchemaName, Schema: schema, Strict: param.NewOpt(true),
			},
		}}
	}
	return p, nil
}

// completeResponses sends req to /responses and reads the answer into the
// provider-neutral Response.
func (o *OpenAI) completeResponses(ctx context.Context, req llm.Request, model string, headers http.Header) (llm.Response, error) {
	name := o.name()
	body, err := responsesParams(req, model, o.ReasoningEffort)
	if err != nil {
		return llm.Response{}, err
	}
	base := cmp.Or(o.BaseURL, DefaultOpenAIBaseURL)
	s, err := postAnswer(ctx, endpoint{provider: name, client: o.HTTPClient, now: o.now,
		url: strings.TrimRight(base, "/") + "/responses", headers: headers}, body, o.Stream, o.IdleTimeout)
	if err != nil {
		return llm.Response{}, err
	}
	defer s.close()
	r, err := openaiResponse(name, s)
	if err != nil {
		return llm.Response{}, err
	}
	return readResponse(name, req, r)
}

// readResponse maps a Responses API answer: input_tokens include the
// cached ones; an incomplete answer is truncated (max_output_tokens) or
// withheld (content_filter); a refusal part is a refusal.
func readResponse(name string, req llm.Request, r responses.Response) (llm.Response, error) {
	out := llm.Response{
		Model:           string(r.Model),
		InputTokens:     int(r.Usage.InputTokens),
		CacheReadTokens: int(r.Usage.InputTokensDetails.CachedTokens),
		OutputTokens:    int(r.Usage.OutputTokens),
		Stop:            llm.StopComplete,
	}
	if r.Error.Message != "" {
		return out, &llm.ProviderError{Provider: name, Kind: llm.KindOther, Message: string(r.Error.Code) + ": " + r.Error.Message}
	}
	if r.Status == "incomplete" {
		switch r.IncompleteDetails.Reason {
		case "content_filter":
			out.Stop, out.Refusal = llm.StopRefused, "the answer was withheld by the provider's content filter"
			return out, nil
		default: // max_output_tokens
			out.Stop = llm.StopTruncated
		}
	}
	var text, refusal strings.Builder
	for _, item := range r.Output {
		if item.Type != "message" {
			continue // reasoning items carry no answer
		}
		for _, c := range item.Content {
			switch c.Type {
			case "output_text":
				text.WriteString(c.Text)
			case "refusal":
				refusal.WriteString(c.Refusal)
			}
		}
	}
	if s := strings.TrimSpace(refusal.String()); s != "" {
		out.Stop, out.Refusal = llm.StopRefused, s
		return out, nil
	}
	if req.Schema == nil {
		out.Text = llm.StripThink(text.String())
		return out, nil
	}
	doc, ok := llm.ExtractJSON(text.String())
	switch {
	case ok:
		out.Content = doc
	case out.Stop == llm.StopTruncated:
	case strings.TrimSpace(text.String()) == "":
		return out, &llm.MalformedError{Provider: name, Reason: fmt.Sprintf("the answer has no output_text (status %q)", r.Status)}
	default:
		return out, &llm.MalformedError{Provider: name, Reason: "output_text holds no JSON object", Raw: text.String()}
	}
	return out, nil
}
