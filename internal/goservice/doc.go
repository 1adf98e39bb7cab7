// Package goservice is the reference domain service for Go repositories
// (SPEC §10), served by cmd/cogworks-domain-go and, in-process on a temporary
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
// review_rules = go vet analyzers; simulate = go test -json; extract_interfaces
// = exported declarations and //cogworks:contract constant values via go/ast
// and go/constant; dependency_graph = go list -json; validate_deps = go.mod
// parse, go list -deps and go mod verify with the module proxy switched off.
// Unknown methods answer unsupported_method.
//
// The handler is safe for concurrent use; requests share nothing but the
// module and build caches of the environment.
package goservice
