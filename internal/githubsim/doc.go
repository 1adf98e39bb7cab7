// Package githubsim is a stateful in-memory GitHub REST API simulator used by
// CogWorks's adapter tests, end-to-end tests and `cogworks demo`.
//
// go-github v62 works against it unmodified when built with
//
//	github.NewClient(nil).WithEnterpriseURLs(url+"/api/v3/", url+"/api/uploads/")
//
// Every route is served both under /api/v3 (and /api/uploads) and bare.
// JSON bodies use GitHub's field names, so go-github decodes them as it
// would real responses.
//
// # State and behaviour
//
// Repos, labels, issues (numbers shared with pull requests; PRs carry a
// "pull_request" key and appear in the issues list, as on GitHub),
// comments, issue events (labeled, unlabeled, closed, reopened, merged)
// attributed to the acting user, sub-issues, pull requests, reviews and
// review comments, CI (SeedWorkflowRun: a check suite, a workflow run
// and per job a job and a check run of the same id, with steps,
// annotations, output and a log that GET actions/jobs/{id}/logs
// redirects to; rerun-failed-jobs; WorkflowRunEvents builds the
// check_run, check_suite and workflow_run deliveries), and git data. Git objects are stored under their real
// SHA-1 (blob, tree and commit encodings as git writes them), so identical
// trees get identical SHAs and refs, commits, trees, blobs and the contents
// API stay consistent with each other. Merges take the head tree (no
// three-way merge or conflict detection); update-branch merges the base
// into the head file by file (a file both sides changed is a conflict,
// 422).
//
// The acting user is the login mapped by AddToken to the request's token
// ("token X" or "Bearer X"); otherwise the login set by SetActor
// (DefaultActor, "cogworks[bot]", unless changed).
//
// Collaborator permission: the repo owner is admin, seeded collaborators
// have their permission, and anyone else gets "read" on a public repo
// (the CreateRepo default) and "none" on a private one (SetPrivate). As on
// GitHub, the legacy "permission" field reports maintain as "write" and
// triage as "read"; "role_name" carries the exact role.
//
// An App (AddApp) may have a webhook (SetAppWebhook): DeliverAppEvent
// sends an event to it as GitHub does (signed, a fresh X-GitHub-Delivery
// guid) and logs the attempt; as on GitHub, a failed delivery is not
// retried. The App's delivery log is served (GET /app/hook/deliveries,
// newest first, cursor pagination) and an attempt is redelivered under its
// guid by POST /app/hook/deliveries/{delivery_id}/attempts, sent before
// the 202 so that tests see its result.
//
// # GitHub's refusals (strict by default)
//
// The simulator refuses what GitHub refuses, each under a Rule that is on
// unless a test relaxes it (WithRelaxed, Server.Relax): contents reads of
// files over 1 MB with the default media type (raw and object serve
// them), inline review comments off the PR's diff hunks, PR creation by an
// Actions GITHUB_TOKEN while the repository setting is off, bodies over
// 65,536 characters, endpoint permissions of Actions and installation
// tokens, secondary limits (80 content-creating requests a minute, 500 an
// hour), GITHUB_TOKEN's 1,000 requests an hour per repository and 301 on
// transferred issues (MoveIssue). WithEnterprise serves a GHES version
// (without sub-issues before 3.20); SetSearchIncomplete times searches
// out. Repository archives (/tarball) redirect to a codeload-like URL.
//
// # Transport behaviour
//
// Every response carries X-RateLimit-Limit/Remaining/Used/Reset/Resource
// (separate "core" and "search" budgets) and X-GitHub-Request-Id. When a
// budget is spent the server answers 403 with GitHub's rate-limit message
// and Remaining 0 until the window resets. Successful GETs carry an ETag;
// If-None-Match with a matching tag yields 304 without consuming the budget.
// Injected faults (InjectFault) take precedence over everything else.
// Errors use GitHub's shapes: 404 {"message":"Not Found",...}, 422
// {"message":"Validation Failed","errors":[...]} and, for a body GitHub's
// schema refuses, 422 {"message":"Invalid request.\n\n..."}. Every
// request, including faulted, rate-limited and 304 ones, is recorded in
// the request log with its query and body (and its answer
// WithResponseLog; WithObserver sees each as it is served).
//
// # GitHub's description
//
// Every route is an operation of GitHub's REST OpenAPI description
// (Routes names them), and what GitHub does not serve is 404: package
// openapi checks the routes, the refusals and the answers against the
// description (docs/github-conformance.md).
//
// # Concurrency
//
// A Server is safe for concurrent use: one mutex guards the simulated
// state, another the request log, faults and rate limits. Injected delays
// do not hold the state lock.
package githubsim
