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
//     jittered exponential backoff, at most TransientRetries times (the
//     waiting is internal/retry, shared with the GitHub transport);
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
// also Ollama and vLLM, whose Flavor changes the parameters sent) and
// Scripted (a replay script for tests and `cogworks demo`, which fails
// with *ScriptExhaustedError rather than inventing an answer). Requests
// and answers are the official SDKs' types (anthropic-sdk-go
// MessageNewParams / Message, openai-go ChatCompletionNewParams /
// ChatCompletion), so a field the APIs do not know cannot be sent; the
// HTTP call itself stays a plain net/http POST because the gateway owns
// the retry policy (the SDK clients retry on their own) and needs the raw
// status, error code and Retry-After to classify failures (ErrorKind: a
// 400 is a configuration error, an exhausted quota is not transient).
//
// Output schemas are generated in the form OpenAI's strict mode accepts
// (every property required, optional ones nullable, unsupported keywords
// moved into descriptions but still enforced locally); StrictViolations
// checks a schema against those rules. Answers that end early are
// outcomes of their own: a truncated answer gets one more request with a
// larger limit and an instruction to be brief, then *TruncatedError; a
// refusal is *RefusalError with the model's text. Neither is a schema
// retry. ExtractJSON reads the object out of prose, fences and <think>
// blocks that non-strict local servers return.
//
// Prices and limits come from a dated table in LiteLLM's format
// (models.json, a copy of the shared llm-models.json; ModelTableAsOf);
// cache reads and writes are priced at their own rates. Token counts come
// from the provider's usage fields; where none exist (budget estimates,
// context packing, the scripted provider) EstimateTokens counts by
// character class and errs high (tested against OpenAI's tokenizers).
//
// Concurrency: providers and a configured Gateway are safe for concurrent
// use; the Ledger implementation decides how concurrent spends are
// serialised (MemoryLedger locks).
package llm
