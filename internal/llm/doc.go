// Package llm is CogWorks's provider-neutral LLM gateway.
//
// Every LLM call of the pipeline goes through Gateway.Structured, which:
//
//  1. renders the named prompt template through the Renderer port
//     (prompts.Set in production) and runs the injected redaction hook
//     over every text sent (secrets never reach a provider);
//  2. generates the output JSON Schema from the Go type of the output value
//     with invopop/jsonschema (definitions inlined, additionalProperties
//     false, fields required unless omitempty) and caches it per type;
//  3. before every provider request, checks the Budget: tokens and dollars
//     already spent (read from the caller's Ledger port) plus the estimate
//     for this request (prompt estimate + MaxTokens) must stay within the
//     limits, else *BudgetExceededError and nothing is sent
//     (ASSERT-CODE-005);
//  4. sends the request, retrying transient failures (*ProviderError with
//     Retryable: 429 honouring Retry-After, 5xx, 529, timeouts) with
//     jittered exponential backoff, at most TransientRetries times;
//  5. validates the answer with santhosh-tekuri/jsonschema; an invalid or
//     malformed answer (not JSON, no tool_use block) is sent back with the
//     validator's messages and their JSON pointer paths appended to the
//     conversation, at most SchemaRetries times (ASSERT-SCHEMA-001); a valid
//     answer is decoded into the output value (ASSERT-SCHEMA-002);
//  6. books each answered attempt in the Ledger and returns a CallRecord for
//     the audit trail (model, sha256 of the prompt, tokens, latency,
//     attempts, schema retries, 75%/90% budget warnings crossed).
//
// Providers: Anthropic (Messages API, structured output through a forced
// tool), OpenAI (Chat Completions with response_format json_schema strict;
// also Ollama, vLLM and llama.cpp through BaseURL) and Scripted (a replay
// script for tests and `cogworks demo`, which fails with
// *ScriptExhaustedError rather than inventing an answer).
//
// The HTTP providers are thin net/http clients rather than the official
// SDKs: the gateway owns the retry policy (the SDKs retry on their own and
// would have to be switched off per call), needs the raw status and
// Retry-After to classify errors, must treat a missing tool_use block or
// non-JSON content as a schema-class error, and only uses one endpoint per
// provider. Writing the two request/response shapes directly keeps the
// wire format exact and testable against httptest servers.
//
// Token counts come from the provider's usage fields; where none exist
// (budget estimates, the scripted provider) EstimateTokens is used: one
// token per three bytes, rounded up — conservative, since real tokenizers
// average about four bytes per token.
//
// Concurrency: providers and a configured Gateway are safe for concurrent
// use; the Ledger implementation decides how concurrent spends are
// serialised (MemoryLedger locks).
package llm
