// Package github is CogWorks's adapter over go-github v62.
//
// It exposes neutral value types (Issue, Comment, PullRequest, ...) so that
// consumers never depend on go-github's pointer-heavy structs, and a Client
// whose methods are the only way CogWorks talks to GitHub. Consumers declare
// the small subset of Client methods they need as their own interfaces.
//
// The Client enforces a capability manifest: operations CogWorks must never
// perform (merging, approving, requesting changes, closing issues or PRs)
// fail with a *DeniedError before any request is sent.
//
// Transport middleware retries 5xx with jittered exponential backoff,
// honours Retry-After and secondary rate limits on 403/429, records the
// X-RateLimit-* headers, serves repeated GETs with conditional requests
// (ETag / If-None-Match), and counts every request so callers can report
// requests per step.
package github
