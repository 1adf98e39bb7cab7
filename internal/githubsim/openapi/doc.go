// Package openapi checks CogWorks's GitHub traffic against GitHub's own
// REST API description, the outside truth the simulator (githubsim) is
// held to.
//
// testdata/api.github.com.trimmed.json is GitHub's OpenAPI description
// from the npm package @octokit/openapi (MIT), cut down by ./gen to the
// operations the simulator serves: their path and query parameters,
// request-body and response schemas, every method GitHub serves on each
// path, and which operations GitHub Enterprise Server versions lack or
// take otherwise.
// Default parses and compiles it once per process.
//
// A Description matches a request to its operation (Match) and checks it
// (CheckRequest: declared query parameters of valid type and enum,
// per_page ≤ 100, a body valid against the requestBody schema) and the
// answer (CheckResponse: a declared success status, a body valid against
// that status's schema with "required" relaxed, GitHub's error shape).
// CheckLog runs both over a simulator's request log, and also requires the
// fields the adapter reads (AdapterReads). CheckWebhook checks a webhook
// payload against its x-webhooks schema. docs/github-conformance.md says
// what is relaxed and why, and how to regenerate the file.
//
// It is test support: no production code imports it.
package openapi

//go:generate go run ./gen -pkg $OCTOKIT_OPENAPI -out testdata/api.github.com.trimmed.json
