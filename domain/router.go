package domain

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ServicesDoc is the document that says how to register a domain service;
// every "no service covers this" error points at it.
const ServicesDoc = "docs/domain-services.md"

// NoServiceError reports artifacts that no registered domain service
// covers: the stage cannot check them, so it halts and says what to
// configure.
type NoServiceError struct {
	// Paths are the artifact paths no available service covers.
	Paths []string
	// Types are the artifact types the available services declare.
	Types []string
}

// Error implements error.
func (e *NoServiceError) Error() string {
	declared := "no domain service is registered"
	if len(e.Types) > 0 {
		declared = "the registered services declare only " + strings.Join(e.Types, ", ")
	}
	if len(e.Paths) == 0 {
		return fmt.Sprintf("no domain service is available (%s): register one whose artifact_types cover the repository's files in %s (see %s)",
			declared, DefaultServicesFile, ServicesDoc)
	}
	return fmt.Sprintf("no domain service covers %s (%s): register one whose artifact_types cover them in %s (see %s)",
		strings.Join(e.Paths, ", "), declared, DefaultServicesFile, ServicesDoc)
}

// Configuration says what the repository's maintainers configure to fix
// the failure; a failure report shows it instead of an empty attempt list.
func (e *NoServiceError) Configuration() string {
	return configureServices
}

// configureServices is the fix for a missing or unreachable service.
const configureServices = "Register a domain service for the repository's languages in `" + DefaultServicesFile +
	"` (the built-in Go service needs no registration for a `go.mod` repository): see " + ServicesDoc +
	" for the contract, a minimal service and `domain/conformance` to test it. Then apply `cogworks:retry`."

// routedClient is what the Router needs from one service: *Client.
type routedClient interface {
	Validate(ctx context.Context, req Request) (DiagnosticsResult, error)
	Normalise(ctx context.Context, req Request) (NormaliseResult, error)
	ReviewRules(ctx context.Context, req Request, p ReviewRulesParams) (DiagnosticsResult, error)
	Simulate(ctx context.Context, req Request, p SimulateParams) (SimulateResult, error)
	ExtractInterfaces(ctx context.Context, req Request) (ExtractResult, error)
	RepoMap(ctx context.Context, req Request) (RepoMapResult, error)
}

// Routed is one available service as the Router sees it.
type Routed struct {
	Name      string
	Handshake HandshakeResult
	Client    routedClient
}

// Router sends each request's artifacts to the services whose declared
// artifact_types cover them and merges the answers, so a change touching
// .py and .ts files reaches both services and .go files the Go service.
// An artifact several services cover goes to the first registered one.
// Artifacts no service covers (go.sum, README.md, fixtures) are context:
// they travel with every call so each service sees the whole change; a
// request none of whose artifacts is covered goes whole to the first
// service when it changes no source code (documentation, templates, data:
// that service's build and tests still check it), and otherwise fails
// with *NoServiceError (or *HaltError when an unavailable service might
// have covered them).
// With one service every request reaches it unchanged. A Router is safe
// for concurrent use; calls are made one service after another, in
// registration order.
type Router struct {
	services []Routed
	halt     *HaltError // template when some registered service is unavailable
}

// NewRouter routes over the available services of set.
func NewRouter(set *Set) *Router {
	r := &Router{}
	for _, st := range set.Services() {
		if !st.Available() {
			if r.halt == nil {
				r.halt = &HaltError{}
			}
			r.halt.Services = append(r.halt.Services, st.Config.Name)
			r.halt.Reasons = append(r.halt.Reasons, fmt.Sprintf("%q at %s: %v", st.Config.Name, st.Config.Describe(), st.Err))
			continue
		}
		r.services = append(r.services, Routed{Name: st.Config.Name, Handshake: st.Handshake, Client: st.Client})
	}
	return r
}

// NewRouterOf routes over services as given (tests and fakes).
func NewRouterOf(services ...Routed) *Router { return &Router{services: services} }

// Covering returns the index of the service that covers p, -1 when none.
func (r *Router) Covering(p string) int {
	return slices.IndexFunc(r.services, func(s Routed) bool { return s.Handshake.Covers(p) })
}

// route is one service's share of a request.
type route struct {
	svc   int
	req   Request
	paths []string // the routing keys it covers
}

// plan splits req by service. keys are the paths that choose the
// services (the artifacts' paths unless given). A request with no keys
// goes to the first service whole.
func (r *Router) plan(req Request, keys []string) ([]route, error) {
	if len(keys) == 0 {
		for _, a := range req.Artifacts {
			keys = append(keys, a.Path)
		}
	}
	if len(r.services) == 0 {
		return nil, r.uncovered(keys)
	}
	if len(keys) == 0 {
		return []route{{svc: 0, req: req}}, nil
	}
	byService := map[int][]string{}
	var uncovered []string
	for _, k := range keys {
		if i := r.Covering(k); i >= 0 {
			byService[i] = append(byService[i], k)
		} else {
			uncovered = append(uncovered, k)
		}
	}
	if len(byService) == 0 {
		if r.halt == nil && !slices.ContainsFunc(uncovered, isSourceCode) {
			// Only documentation, templates or data changed: the first
			// service checks them as part of its own build and tests (a
			// Go package embeds its templates), as before routing existed.
			return []route{{svc: 0, req: req}}, nil
		}
		return nil, r.uncovered(uncovered)
	}
	var routes []route
	for i := range r.services {
		paths, ok := byService[i]
		if !ok {
			continue
		}
		sub := req
		if len(r.services) > 1 {
			// Artifacts another service covers stay with that service.
			sub.Artifacts = slices.DeleteFunc(slices.Clone(req.Artifacts), func(a Artifact) bool {
				j := r.Covering(a.Path)
				return j >= 0 && j != i
			})
		}
		routes = append(routes, route{svc: i, req: sub, paths: paths})
	}
	return routes, nil
}

func (r *Router) uncovered(paths []string) error {
	if r.halt != nil {
		h := *r.halt
		h.Artifacts = paths
		return &h
	}
	e := &NoServiceError{Paths: paths}
	for _, s := range r.services {
		e.Types = append(e.Types, s.Handshake.ArtifactTypes...)
	}
	slices.Sort(e.Types)
	e.Types = slices.Compact(e.Types)
	return e
}

// Validate implements the validate method over every covering service.
func (r *Router) Validate(ctx context.Context, req Request) (DiagnosticsResult, error) {
	return r.diagnostics(ctx, req, func(i int, sub Request) (DiagnosticsResult, error) { return r.services[i].Client.Validate(ctx, sub) })
}

// ReviewRules implements review_rules over every covering service. It is
// optional: a service that does not declare it has no findings.
func (r *Router) ReviewRules(ctx context.Context, req Request, p ReviewRulesParams) (DiagnosticsResult, error) {
	return r.diagnostics(ctx, req, func(i int, sub Request) (DiagnosticsResult, error) {
		if !r.services[i].Handshake.Supports(MethodReviewRules) {
			return DiagnosticsResult{}, nil
		}
		return r.services[i].Client.ReviewRules(ctx, sub, p)
	})
}

func (r *Router) diagnostics(_ context.Context, req Request, call func(int, Request) (DiagnosticsResult, error)) (DiagnosticsResult, error) {
	routes, err := r.plan(req, nil)
	if err != nil {
		return DiagnosticsResult{}, err
	}
	var out DiagnosticsResult
	for _, rt := range routes {
		res, err := call(rt.svc, rt.req)
		if err != nil {
			return DiagnosticsResult{}, err
		}
		if len(routes) == 1 {
			return res, nil
		}
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
	}
	return out, nil
}

// Normalise implements normalise: each artifact comes back from the
// service that covers it; context artifacts from the first service. It is
// optional: a service that does not declare it leaves its files as they
// are.
func (r *Router) Normalise(ctx context.Context, req Request) (NormaliseResult, error) {
	routes, err := r.plan(req, nil)
	if err != nil {
		return NormaliseResult{}, err
	}
	var out NormaliseResult
	seen := map[string]bool{}
	for _, rt := range routes {
		res := NormaliseResult{Artifacts: rt.req.Artifacts, Diagnostics: []Diagnostic{}}
		if r.services[rt.svc].Handshake.Supports(MethodNormalise) {
			if res, err = r.services[rt.svc].Client.Normalise(ctx, rt.req); err != nil {
				return NormaliseResult{}, err
			}
		}
		if len(routes) == 1 {
			return res, nil
		}
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
		out.Changed = out.Changed || res.Changed
		for _, a := range res.Artifacts {
			if !seen[a.Path] {
				seen[a.Path] = true
				out.Artifacts = append(out.Artifacts, a)
			}
		}
	}
	return out, nil
}

// ExtractInterfaces implements extract_interfaces over every covering
// service.
func (r *Router) ExtractInterfaces(ctx context.Context, req Request) (ExtractResult, error) {
	routes, err := r.plan(req, nil)
	if err != nil {
		return ExtractResult{}, err
	}
	var out ExtractResult
	for _, rt := range routes {
		res, err := r.services[rt.svc].Client.ExtractInterfaces(ctx, rt.req)
		if err != nil {
			return ExtractResult{}, err
		}
		if len(routes) == 1 {
			return res, nil
		}
		out.Declarations = append(out.Declarations, res.Declarations...)
		out.Values = append(out.Values, res.Values...)
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
	}
	return out, nil
}

// Simulate implements simulate. p.Paths (the paths the change touched)
// choose the services when given, else the artifacts do; each service is
// asked about its own paths, and the Go-shaped p.Packages go to the
// service whose paths lie in them (a package no path names goes to
// every service called). The verdict passes only when every run passed.
func (r *Router) Simulate(ctx context.Context, req Request, p SimulateParams) (SimulateResult, error) {
	routes, err := r.plan(req, p.Paths)
	if err != nil {
		return SimulateResult{}, err
	}
	if len(routes) == 1 {
		sub := p
		if len(p.Paths) > 0 {
			sub.Paths = routes[0].paths
		}
		return r.services[routes[0].svc].Client.Simulate(ctx, routes[0].req, sub)
	}
	out := SimulateResult{Passed: true}
	var outputs []string
	for _, rt := range routes {
		sub := p
		sub.Paths = rt.paths
		sub.Packages = packagesOf(p.Packages, rt.paths, p.Paths)
		res, err := r.services[rt.svc].Client.Simulate(ctx, rt.req, sub)
		if err != nil {
			return SimulateResult{}, err
		}
		out.Passed = out.Passed && res.Passed
		if out.ExitCode == 0 {
			out.ExitCode = res.ExitCode
		}
		out.DurationMS += res.DurationMS
		out.Tests = append(out.Tests, res.Tests...)
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
		out.DeclaredTests = append(out.DeclaredTests, res.DeclaredTests...)
		if res.Output != "" {
			outputs = append(outputs, fmt.Sprintf("== %s ==\n%s", r.services[rt.svc].Name, res.Output))
		}
	}
	out.Output = strings.Join(outputs, "\n")
	return out, nil
}

// packagesOf keeps the packages ("./dir") holding one of own, and those
// no path of all lies in.
func packagesOf(pkgs, own, all []string) []string {
	in := func(pkg string, paths []string) bool {
		return slices.ContainsFunc(paths, func(p string) bool { return "./"+path.Dir(p) == pkg })
	}
	var out []string
	for _, pkg := range pkgs {
		if in(pkg, own) || !in(pkg, all) {
			out = append(out, pkg)
		}
	}
	return out
}

// RepoMap implements repo_map: every service offering it maps its own
// language; the maps are merged. With none it fails with
// unsupported_method, as a single service without it does.
func (r *Router) RepoMap(ctx context.Context, req Request) (RepoMapResult, error) {
	var idx []int
	for i, s := range r.services {
		if s.Handshake.Supports(MethodRepoMap) {
			idx = append(idx, i)
		}
	}
	switch len(idx) {
	case 0:
		return RepoMapResult{}, &Error{Code: CodeUnsupportedMethod, Message: "no registered domain service offers repo_map", Method: MethodRepoMap}
	case 1:
		return r.services[idx[0]].Client.RepoMap(ctx, req)
	}
	var out RepoMapResult
	for _, i := range idx {
		sub := req
		sub.Artifacts = slices.DeleteFunc(slices.Clone(req.Artifacts), func(a Artifact) bool {
			j := r.Covering(a.Path)
			return j >= 0 && j != i
		})
		res, err := r.services[i].Client.RepoMap(ctx, sub)
		var de *Error
		if errors.As(err, &de) && de.Code == CodeUnsupportedMethod {
			continue
		}
		if err != nil {
			return RepoMapResult{}, err
		}
		if out.Module == "" {
			out.Module = res.Module
		}
		out.Packages = append(out.Packages, res.Packages...)
		out.Diagnostics = append(out.Diagnostics, res.Diagnostics...)
	}
	return out, nil
}

// sourceExtensions are the file types of programming languages: a change
// to one of them that no service covers cannot be checked, so it halts
// rather than pass untested. Other files (Markdown, templates, data,
// configuration) are checked by the first service's build and tests.
var sourceExtensions = []string{
	".go", ".py", ".pyi", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".rs", ".java", ".kt", ".kts",
	".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cs", ".fs", ".rb", ".php", ".swift", ".m", ".mm", ".dart",
	".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".lua", ".pl", ".r", ".jl", ".zig", ".sh", ".sql",
}

// isSourceCode reports whether p is a programming language's source file.
func isSourceCode(p string) bool {
	return slices.Contains(sourceExtensions, strings.ToLower(path.Ext(p)))
}
