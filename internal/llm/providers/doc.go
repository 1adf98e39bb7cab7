// Package providers holds the LLM providers that speak real APIs, with
// the official SDKs' request and answer types, and FromConfig, which
// builds the one an llm.Config names. It is the only package that links
// anthropic-sdk-go and openai-go; the gateway, the scripted provider and
// the provider-neutral types are package llm.
//
// Anthropic speaks the Messages API, with structured output through a
// forced tool, or output_config.format for models the table marks as
// refusing one. OpenAI speaks Chat Completions with response_format
// json_schema strict, or the Responses API for models the table marks
// "responses"; it also serves Ollama and vLLM, whose Flavor changes the
// parameters sent. Requests and answers are the SDKs' types
// (anthropic-sdk-go MessageNewParams / Message, openai-go
// ChatCompletionNewParams / ChatCompletion), so a field the APIs do not
// know cannot be sent; the HTTP call itself stays a plain net/http POST
// because the gateway owns the retry policy (the SDK clients retry on
// their own) and needs the raw status, error code and Retry-After to
// classify failures (llm.ErrorKind: a 400 is a configuration error, a
// prompt over the context window is *llm.ContextOverflowError, an
// exhausted quota is not transient). With llm.Config.Stream, Anthropic and
// OpenAI answers are streamed and read with the SDKs' SSE decoders and
// accumulators; the time-out is then the stream's silence (IdleTimeout),
// not its length. A model past its table retirement date is
// *llm.RetiredModelError before anything is sent.
//
// Providers are safe for concurrent use and never retry on their own.
package providers
