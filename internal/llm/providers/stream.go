package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	assestream "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/openai/openai-go/v3"
	ossestream "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// Streaming (llm.Config.Stream): Anthropic and OpenAI answers are requested with
// "stream": true and read as server-sent events with the SDKs' decoders
// and accumulators, so a long answer is bounded by the silence between
// events (DefaultStreamIdleTimeout), not by a whole-request time-out, and
// anthropic-sdk-go's refusal of long non-streaming requests does not
// apply. An answer that arrives as plain JSON (a proxy that ignores
// "stream") is read as such.

// streamed is an open streamed answer, or the whole answer when the
// server sent plain JSON.
type streamed struct {
	x    *exchange
	resp *http.Response
	raw  []byte
}

// postStream POSTs body with "stream": true added.
func postStream(ctx context.Context, e endpoint, body any, idle time.Duration) (*streamed, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s provider: encode request: %w", e.provider, err)
	}
	payload = withStream(payload)
	if idle <= 0 {
		idle = DefaultStreamIdleTimeout
	}
	e.headers = e.headers.Clone()
	e.headers.Set("Accept", "text/event-stream")
	x, resp, err := send(ctx, e, payload, idle)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		defer x.close()
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		if err != nil {
			return nil, x.fail(fmt.Errorf("read response: %w", err))
		}
		return &streamed{x: x, raw: raw}, nil
	}
	return &streamed{x: x, resp: resp}, nil
}

// withStream adds "stream":true to an encoded JSON object.
func withStream(payload []byte) []byte {
	payload = bytes.TrimRight(payload, " \n")
	out := append([]byte{}, payload[:len(payload)-1]...)
	if len(bytes.TrimSpace(out)) > 1 {
		out = append(out, ',')
	}
	return append(out, `"stream":true}`...)
}

func (s *streamed) close() {
	if s.resp != nil {
		_ = s.resp.Body.Close()
	}
	if s.x != nil {
		s.x.close()
	}
}

// postAnswer POSTs body, streamed when stream is set, else in one piece
// within the client's time-out.
func postAnswer(ctx context.Context, e endpoint, body any, stream bool, idle time.Duration) (*streamed, error) {
	if stream {
		return postStream(ctx, e, body, idle)
	}
	raw, err := postJSON(ctx, e, body)
	if err != nil {
		return nil, err
	}
	return &streamed{raw: raw}, nil
}

// interrupted is a stream that failed or ended before its final event:
// transient, but sent (the provider may bill it), so not re-sent blindly.
func (s *streamed) interrupted(err error) error {
	if err == nil {
		err = fmt.Errorf("the stream ended before its final event")
	}
	fe := s.x.fail(err)
	if pe, ok := fe.(*llm.ProviderError); ok {
		pe.Sent = true
		if pe.Message == "" {
			pe.Message = "answer stream interrupted"
		}
	}
	return fe
}

// anthropicMessage reads a streamed Messages API answer with the SDK's
// Message.Accumulate.
func anthropicMessage(s *streamed) (anthropic.Message, error) {
	var msg anthropic.Message
	if s.resp == nil {
		if err := json.Unmarshal(s.raw, &msg); err != nil {
			return msg, &llm.MalformedError{Provider: "anthropic", Reason: fmt.Sprintf("response body is not a Messages API answer: %v", err), Raw: string(s.raw)}
		}
		return msg, nil
	}
	stream := assestream.NewStream[anthropic.MessageStreamEventUnion](assestream.NewDecoder(s.resp), nil)
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return msg, &llm.MalformedError{Provider: "anthropic", Reason: fmt.Sprintf("stream event %s: %v", ev.Type, err)}
		}
		stopped = stopped || ev.Type == "message_stop"
	}
	if err := stream.Err(); err != nil || !stopped {
		return msg, s.interrupted(err)
	}
	return msg, nil
}

// openaiChatCompletion reads a streamed chat completion with the SDK's
// ChatCompletionAccumulator (usage arrives in the last chunk, asked for
// with stream_options.include_usage).
func openaiChatCompletion(name string, s *streamed) (openai.ChatCompletion, error) {
	if s.resp == nil {
		var cc openai.ChatCompletion
		if err := json.Unmarshal(s.raw, &cc); err != nil {
			return cc, &llm.MalformedError{Provider: name, Reason: fmt.Sprintf("response body is not a chat completion: %v", err), Raw: string(s.raw)}
		}
		return cc, nil
	}
	stream := ossestream.NewStream[openai.ChatCompletionChunk](ossestream.NewDecoder(s.resp), nil)
	var acc openai.ChatCompletionAccumulator
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, c := range chunk.Choices {
			finished = finished || c.FinishReason != ""
		}
	}
	if err := stream.Err(); err != nil || !finished {
		return acc.ChatCompletion, s.interrupted(err)
	}
	return acc.ChatCompletion, nil
}

// openaiResponse reads a streamed Responses API answer: the terminal
// event (response.completed, .incomplete or .failed) carries the whole
// response.
func openaiResponse(name string, s *streamed) (responses.Response, error) {
	var r responses.Response
	if s.resp == nil {
		if err := json.Unmarshal(s.raw, &r); err != nil {
			return r, &llm.MalformedError{Provider: name, Reason: fmt.Sprintf("response body is not a Responses API answer: %v", err), Raw: string(s.raw)}
		}
		return r, nil
	}
	stream := ossestream.NewStream[responses.ResponseStreamEventUnion](ossestream.NewDecoder(s.resp), nil)
	done := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.completed", "response.incomplete", "response.failed":
			r, done = ev.Response, true
		case "error":
			return r, &llm.ProviderError{Provider: name, Kind: llm.KindTransient, Retryable: true, Sent: true,
				Message: fmt.Sprintf("stream error %s: %s", ev.Code, ev.Message)}
		}
	}
	if err := stream.Err(); err != nil || !done {
		return r, s.interrupted(err)
	}
	return r, nil
}
