// Package github is CogWorks's adapter over go-github v62.
//
// It exposes neutral value types (Issue, Comment, PullRequest, ...) so that
// consumers never depend on go-github's pointer-heavy structs, and a Client
// whose methods are the only way CogWorks talks to GitHub. Consumers declare
// the small subset of Client methods they need as their own interfaces.
//
// # Construction and auth
//
// New builds a Client from Options: a personal/Actions token, or GitHub App
// installation auth through ghinstallation (the installation token is
// fetched on first use and sent as "token ..."), an optional GitHub
// Enterprise-style base URL (http://host/api/v3/), user agent, per-attempt
// timeout, logger and retry policy. OptionsFromEnv reads the
// COGWORKS_GITHUB_* variables; no error or log line ever contains token or
// key text.
//
// # Capability discipline
//
// The Client enforces a capability manifest: operations CogWorks must never
// perform (merging, approving, requesting changes, closing issues or PRs)
// fail with a *DeniedError before any request is sent, as does any write
// (CreateTree, PutFile) touching .cogworks/interfaces/ or
// .cogworks/scenarios/. Absolute paths and ".." segments fail with a
// *PathError. New refuses a manifest that would allow any of these.
//
// # Errors
//
// Non-2xx answers become *APIError (errors.Is matches ErrNotFound for 404
// and ErrUnprocessable for 422), wrapped with what was being done.
// Rate limits that cannot be waited out become *RateLimitError.
//
// # Transport
//
// Transport middleware retries 5xx and network errors with jittered
// exponential backoff (request bodies are replayed), honours Retry-After,
// X-RateLimit-Reset and secondary rate limits on 403/429 up to MaxDelay,
// records the X-RateLimit-* headers (RateLimit), serves repeated GETs with
// conditional requests (ETag / If-None-Match, 304 served from an LRU cache
// keyed by URL, Accept and a hash of the credentials), and counts every
// request on the wire, retries included (Requests). List methods follow
// every page. The waiting (backoff, Retry-After, the sleep) is
// internal/retry, shared with the LLM gateway; what is retryable is
// decided here.
//
// Writes are not deduplicated here: a retried POST after a 5xx may have
// been applied; idempotency is the idem package's job.
//
// A Client is safe for concurrent use.
package github
