package domain

import (
	"slices"
	"strings"
)

// HandshakeResult describes a service: who it is, which API version it speaks
// and what it can do. Capabilities are discovered here, never configured.
type HandshakeResult struct {
	Name           string `json:"name"`
	ServiceVersion string `json:"service_version"`
	// APIVersion is the semver Extension API version the service speaks.
	APIVersion string `json:"api_version" jsonschema:"pattern=^[0-9]+\\.[0-9]+\\.[0-9]+([-+].*)?$"`
	// Domain is the engineering domain the service covers, e.g. "software".
	Domain string `json:"domain"`
	// Capabilities lists the method names the service implements.
	Capabilities []string `json:"capabilities"`
	// ArtifactTypes lists what the service understands: ".ext" suffixes or
	// exact base names such as "go.mod".
	ArtifactTypes []string `json:"artifact_types"`
	// InterfaceTypes lists the registry interface types the service can
	// extract values for, e.g. "bus_protocol".
	InterfaceTypes []string `json:"interface_types"`
	// InterfaceVersions maps an interface id or type to the versions the
	// service is compatible with: exact versions ("1.2.0") or MAJOR versions
	// ("1" or "1.x").
	InterfaceVersions map[string][]string `json:"interface_versions"`
}

// Supports reports whether method is among the declared capabilities.
// Handshake is always supported.
func (h HandshakeResult) Supports(method string) bool {
	return method == MethodHandshake || slices.Contains(h.Capabilities, method)
}

// Covers reports whether the service's artifact types cover path: a type
// starting with "." matches the file extension, any other matches the base
// name exactly.
func (h HandshakeResult) Covers(path string) bool {
	base := path
	if i := strings.LastIndex(path, "/"); i >= 0 {
		base = path[i+1:]
	}
	for _, t := range h.ArtifactTypes {
		if strings.HasPrefix(t, ".") && strings.HasSuffix(base, t) {
			return true
		}
		if t == base {
			return true
		}
	}
	return false
}

// SupportsInterface reports whether the service declares compatibility with
// version of the interface identified by id or, failing that, by its type.
func (h HandshakeResult) SupportsInterface(id, typ, version string) bool {
	accepted, ok := h.InterfaceVersions[id]
	if !ok {
		accepted, ok = h.InterfaceVersions[typ]
	}
	if !ok {
		return false
	}
	major, err := Major(version)
	if err != nil {
		return false
	}
	for _, a := range accepted {
		if a == version {
			return true
		}
		m := strings.TrimSuffix(a, ".x")
		if !strings.Contains(m, ".") && m == major {
			return true
		}
	}
	return false
}

// DiagnosticsResult is the result of validate, review_rules and
// validate_deps.
type DiagnosticsResult struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// NormaliseResult is the result of normalise.
type NormaliseResult struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Artifacts holds every input artifact in normalised form.
	Artifacts []Artifact `json:"artifacts"`
	// Changed reports whether normalisation altered any artifact.
	Changed bool `json:"changed"`
}

// ReviewRulesParams are the optional params of review_rules.
type ReviewRulesParams struct {
	// Analyzers restricts the run to the named analyzers; empty runs all.
	Analyzers []string `json:"analyzers,omitempty"`
}

// SimulateParams are the params of simulate.
type SimulateParams struct {
	// Packages to test (Go-shaped "./dir" package patterns); empty means
	// every package.
	Packages []string `json:"packages,omitempty"`
	// Paths (since 1.3.0) are the repository-relative files the change
	// touched that the service covers: a service runs the tests they
	// affect (their own tests, sibling test files, the tests of their
	// package or module). Empty means the service chooses (every test, or
	// Packages). A 1.2 service ignores them; the Go service tests Packages.
	Paths []string `json:"paths,omitempty"`
	// Filter selects tests (a go test -run pattern for the Go service).
	Filter string `json:"filter,omitempty"`
	// Timeout bounds the run, as a Go duration string ("90s").
	Timeout string `json:"timeout,omitempty"`
}

// SimulateResult is the result of simulate.
//
// Passed is the service's own verdict, and a service must set it only when
// the run exited 0, at least one test ran and passed, and no test failed.
// CogWorks does not take it on trust: it recomputes the verdict from Tests
// (docs/domain-services.md, "Test verdicts"), so a run whose tests report
// a failure, or where no test ran, fails whatever Passed and ExitCode say.
type SimulateResult struct {
	Passed     bool         `json:"passed"`
	ExitCode   int          `json:"exit_code"`
	Output     string       `json:"output"`
	DurationMS int64        `json:"duration_ms"`
	Tests      []TestResult `json:"tests"`
	// Diagnostics holds one test_failure diagnostic per failing test and
	// build diagnostics for packages that did not compile.
	Diagnostics []Diagnostic `json:"diagnostics"`
	// DeclaredTests (since 1.4.0) are the tests that the test files among
	// the params' Paths declare on the tree simulated, read by parsing the
	// files as the request gave them, before any of the repository's code
	// runs. CogWorks requires every test a change's test files declare to
	// run and pass, and compares the declarations at base and after the
	// change to tell the tests the change wrote from those it left alone.
	// Absent (a 1.3 service), CogWorks reads Go test files itself and
	// knows no other language's tests.
	DeclaredTests []TestDeclaration `json:"declared_tests,omitempty"`
}

// TestDeclaration is one test a test file declares, named as the same
// service's Tests name it when it runs.
type TestDeclaration struct {
	// File is the repository-relative test file, one of the params' Paths.
	File string `json:"file"`
	// Name is the top-level test as TestResult.Name reports it (a Go
	// TestX, a pytest function or method, a JUnit method, a libtest path
	// such as tests::adds, a vitest title path "describe > test").
	Name string `json:"name"`
	// Package is TestResult.Package of its results, or its directory (the
	// Go service); empty matches any package.
	Package string `json:"package,omitempty"`
	// Line and EndLine (1-based, inclusive) span the declaration: a change
	// to those lines is a change to the test.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
}

// TestResult is the outcome of one test. A skipped test has Passed and
// Skipped both set: it did not fail, and it proves nothing either.
type TestResult struct {
	Name      string `json:"name"`
	Package   string `json:"package"`
	Passed    bool   `json:"passed"`
	Skipped   bool   `json:"skipped,omitempty"`
	Output    string `json:"output"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// ExtractResult is the result of extract_interfaces.
type ExtractResult struct {
	Declarations []Declaration   `json:"declarations"`
	Values       []ContractValue `json:"values"`
	// Diagnostics reports files that did not parse and directives that could
	// not be honoured.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// Declaration is one exported declaration of the artifacts' API.
type Declaration struct {
	// Kind is one of type, func, method, const, var.
	Kind      string `json:"kind" jsonschema:"enum=type,enum=func,enum=method,enum=const,enum=var"`
	Name      string `json:"name"`
	Package   string `json:"package"`
	Signature string `json:"signature"`
	File      string `json:"file"`
	Line      int    `json:"line"`
}

// ContractValue is a value bound in an artifact to a registry interface
// parameter, e.g. by a //cogworks:contract directive.
type ContractValue struct {
	Interface string `json:"interface"`
	// Parameter is the parameter name, or <param>.<item>.<field> for a field
	// of an item of a structured parameter.
	Parameter string `json:"parameter"`
	// Value is a JSON number, string or bool.
	Value    any      `json:"value" jsonschema:"oneof_type=number;string;boolean"`
	Artifact string   `json:"artifact"`
	Location Location `json:"location"`
}

// DependencyGraphResult is the result of dependency_graph.
type DependencyGraphResult struct {
	Packages []PackageNode `json:"packages"`
}

// PackageNode is one package of the workspace and its direct imports.
type PackageNode struct {
	Path    string   `json:"path"`
	Dir     string   `json:"dir"`
	Imports []string `json:"imports"`
}
