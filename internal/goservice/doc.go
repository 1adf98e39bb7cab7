// Package goservice is the reference domain service for Go repositories
// (docs/spec.md §10), served by cmd/cogworks-domain-go and, in-process on a temporary
// unix socket, by `cogworks demo` and tests.
//
// Domain "software", artifact types ".go" and "go.mod". For every request
// the service builds a fresh temporary workspace: the request's artifacts
// written as files (paths that are absolute or escape the root are rejected
// with invalid_request), and symbolic links into repository.path (without
// .git) for everything else, one link per untouched subtree, so a request
// costs no more on a 10,000-file repository than on a 10-file one. It runs
// the real Go toolchain there with GOTOOLCHAIN=local and GOWORK=off (with
// "..." patterns completed for the linked subtrees, which the go command
// does not follow), and always removes the workspace afterwards; the
// repository is never written. Every toolchain invocation is bounded by a
// timeout and killed with its whole process group when it expires.
//
// Methods: normalise = gofmt (go/format); validate = go build + go vet;
// review_rules = go vet analyzers; simulate = go test -c, then each package's
// test binary alone in its own sandbox, read by the host's test2json and
// judged from the events, never from an exit code (testrun.go, verdict.go;
// docs/domain-services.md "Test verdicts"); extract_interfaces
// = exported declarations and //cogworks:contract constant values via go/ast
// and go/constant; dependency_graph = go list -json; validate_deps = go.mod
// parse, go list -deps and go mod verify with the module proxy switched off.
// Unknown methods answer unsupported_method.
//
// The service reads the toolchain's structured output only: go build -json
// and go test -c -json build events, test2json events of each test binary,
// go vet -json findings, go list -json package errors,
// go/scanner error lists from go/parser and go/format, and
// golang.org/x/mod/modfile errors for go.mod. The compiler's messages
// inside build-output events are its documented "file:line:col: message"
// lines; whether one is a syntax or a type error is decided by parsing the
// file it names, not by its wording. Every path is mapped to the
// repository-relative path of a file in the workspace, or left out: a
// finding go vet replays from the build cache names the workspace that
// first produced it. Each diagnostic says whether the failure explains
// itself (Extension API 1.2 Diagnostic.Explains), so callers need no
// knowledge of Go's output to decide whether to show it as it is.
//
// The handler is safe for concurrent use; requests share nothing but the
// module and build caches of the environment.
package goservice
