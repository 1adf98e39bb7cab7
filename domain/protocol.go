package domain

import (
	"encoding/json"
	"slices"

	"github.com/cogworks/cogworks/finding"
)

// APIVersion is the Extension API version this client speaks. Services whose
// handshake reports a different MAJOR version are rejected. 1.1.0 added
// repo_map and Artifact.Delete; a 1.0 service simply does not declare
// repo_map, and callers fall back to what they can do without it. 1.2.0
// added Diagnostic.Explains; a 1.1 service never sets it, and CogWorks then
// treats every failure as one its failure analyst must read. 1.3.0 added
// SimulateParams.Paths, the changed files a service is asked to test; a
// 1.2 service ignores them and tests Packages or everything. 1.4.0 added
// SimulateResult.DeclaredTests, the tests the paths' test files declare;
// without them (a 1.3 service) CogWorks reads declarations from Go test
// files only.
const APIVersion = "1.4.0"

// PathPrefix is the URL path under which every Extension API route lives.
const PathPrefix = "/extension/v1/"

// HealthPath is the liveness route.
const HealthPath = PathPrefix + "health"

// Method names of the Extension API.
const (
	MethodHandshake         = "handshake"
	MethodValidate          = "validate"
	MethodNormalise         = "normalise"
	MethodReviewRules       = "review_rules"
	MethodSimulate          = "simulate"
	MethodValidateDeps      = "validate_deps"
	MethodExtractInterfaces = "extract_interfaces"
	MethodDependencyGraph   = "dependency_graph"
	// MethodRepoMap (since 1.1.0) lists the repository's packages, their
	// imports and their declarations with one-line signatures.
	MethodRepoMap = "repo_map"
)

var allMethods = []string{
	MethodHandshake, MethodValidate, MethodNormalise, MethodReviewRules,
	MethodSimulate, MethodValidateDeps, MethodExtractInterfaces, MethodDependencyGraph,
	MethodRepoMap,
}

// Methods returns every method the Extension API defines, handshake first.
func Methods() []string { return slices.Clone(allMethods) }

// KnownMethod reports whether m is a method the Extension API defines.
func KnownMethod(m string) bool { return slices.Contains(allMethods, m) }

// Repository locates the workspace a request operates on.
type Repository struct {
	// Path is the local checkout the service copies before overlaying artifacts.
	Path string `json:"path"`
	// Ref is the git ref the checkout corresponds to (informational).
	Ref string `json:"ref,omitempty"`
	// Tenant names whose request this is — CogWorks sends the GitHub App
	// installation and the repository ("installation/<id>/repo/<owner>/
	// <name>", or "repo/<owner>/<name>" outside `serve`). A service keys
	// whatever it keeps between requests (build caches) by it, so that one
	// tenant's code never reads what another's wrote; a request without a
	// tenant and without a path shares such state with no other request.
	// It is set by CogWorks, the only caller the service answers, never
	// from repository content. Optional: a service that keeps nothing
	// between requests ignores it.
	Tenant string `json:"tenant,omitempty"`
}

// Artifact is a generated file passed inline and overlaid on the workspace.
type Artifact struct {
	// Path is relative to the repository root; it must not escape it.
	Path    string `json:"path"`
	Content string `json:"content"`
	// Delete (since 1.1.0) removes the file at Path from the workspace
	// instead of writing Content: a change that deletes or renames a file.
	Delete bool `json:"delete,omitempty"`
}

// Request is the envelope of every Extension API call.
type Request struct {
	APIVersion string          `json:"api_version"`
	RequestID  string          `json:"request_id"`
	Method     string          `json:"method"`
	WorkItem   string          `json:"work_item,omitempty"`
	Stage      string          `json:"stage,omitempty"`
	Repository Repository      `json:"repository"`
	Artifacts  []Artifact      `json:"artifacts,omitempty"`
	Params     json.RawMessage `json:"params,omitempty"`
}

// Status is the outcome of a call.
type Status string

// Response statuses.
const (
	StatusOK    Status = "ok"
	StatusError Status = "error"
)

// Response is the envelope of every Extension API answer. Exactly one of
// Result (status ok) and Error (status error) is set.
type Response struct {
	RequestID string          `json:"request_id"`
	Status    Status          `json:"status" jsonschema:"enum=ok,enum=error"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *ErrorBody      `json:"error,omitempty"`
}

// ErrorBody is the error member of a Response.
type ErrorBody struct {
	Code        ErrorCode `json:"code" jsonschema:"enum=tool_not_found,enum=tool_failed,enum=invalid_request,enum=unsupported_method,enum=api_version_mismatch,enum=timeout,enum=artifact_not_found,enum=internal_error"`
	Message     string    `json:"message"`
	Recoverable bool      `json:"recoverable"`
}

// ErrorCode classifies a failed call.
type ErrorCode string

// Error codes of the Extension API.
const (
	CodeToolNotFound       ErrorCode = "tool_not_found"
	CodeToolFailed         ErrorCode = "tool_failed"
	CodeInvalidRequest     ErrorCode = "invalid_request"
	CodeUnsupportedMethod  ErrorCode = "unsupported_method"
	CodeAPIVersionMismatch ErrorCode = "api_version_mismatch"
	CodeTimeout            ErrorCode = "timeout"
	CodeArtifactNotFound   ErrorCode = "artifact_not_found"
	CodeInternalError      ErrorCode = "internal_error"
)

// recoverable records, per code, whether retrying the same call can succeed.
var recoverable = map[ErrorCode]bool{
	CodeToolNotFound:       false,
	CodeToolFailed:         true,
	CodeInvalidRequest:     false,
	CodeUnsupportedMethod:  false,
	CodeAPIVersionMismatch: false,
	CodeTimeout:            true,
	CodeArtifactNotFound:   false,
	CodeInternalError:      true,
}

// Recoverable reports whether an error with this code may succeed on retry.
// Unknown codes are not recoverable.
func (c ErrorCode) Recoverable() bool { return recoverable[c] }

// Known reports whether c is one of the defined error codes.
func (c ErrorCode) Known() bool {
	_, ok := recoverable[c]
	return ok
}

// Diagnostic severities, on the scale of package finding.
const (
	SeverityBlocking      = finding.Blocking
	SeverityWarning       = finding.Warning
	SeverityInformational = finding.Informational
)

// Category classifies a diagnostic.
type Category string

// Diagnostic categories.
const (
	CategorySyntaxError         Category = "syntax_error"
	CategoryTypeError           Category = "type_error"
	CategoryConstraintViolation Category = "constraint_violation"
	CategoryInterfaceMismatch   Category = "interface_mismatch"
	CategoryDependencyError     Category = "dependency_error"
	CategoryStyleViolation      Category = "style_violation"
	CategorySafetyConcern       Category = "safety_concern"
	CategoryPerformanceConcern  Category = "performance_concern"
	CategoryTestFailure         Category = "test_failure"
	CategoryCompleteness        Category = "completeness"
)

var knownCategories = []Category{
	CategorySyntaxError, CategoryTypeError, CategoryConstraintViolation,
	CategoryInterfaceMismatch, CategoryDependencyError, CategoryStyleViolation,
	CategorySafetyConcern, CategoryPerformanceConcern, CategoryTestFailure,
	CategoryCompleteness,
}

// Known reports whether c is one of the spec's (docs/spec.md §10) categories.
func (c Category) Known() bool { return slices.Contains(knownCategories, c) }

// Location points into a file. Line and Column are 1-based; 0 means unknown.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Diagnostic is one finding reported by a domain service.
type Diagnostic struct {
	Artifact string           `json:"artifact"`
	Location Location         `json:"location"`
	Severity finding.Severity `json:"severity" jsonschema:"enum=blocking,enum=warning,enum=informational"`
	// Category is free-form on the wire so that newer services may add
	// categories; use EffectiveSeverity to interpret unknown ones.
	Category Category `json:"category"`
	Message  string   `json:"message"`
	// Explains says how the failure explains itself, so that its message
	// can go back to the implementer as it is (Extension API 1.2). Empty
	// means it does not, or that the service predates 1.2: either way
	// CogWorks asks its failure analyst. Free-form on the wire, like
	// Category; see Explanation.Known.
	Explains Explanation `json:"explains,omitempty"`
}

// Explanation names the evidence a failure carries about its own cause.
type Explanation string

// Explanations a service may report (Extension API 1.2).
const (
	// ExplainsCompileError: the code does not compile or parse; the
	// message gives the position and the reason.
	ExplainsCompileError Explanation = "compile_error"
	// ExplainsAssertion: a failed check printed what it got and what it
	// wanted (got/want, expected/actual).
	ExplainsAssertion Explanation = "assertion_diff"
	// ExplainsPanic: the code panicked and the message holds the stack.
	ExplainsPanic Explanation = "panic_stack"
	// ExplainsTimeout: the test ran past its deadline and the message
	// names it, with the stacks of what was running.
	ExplainsTimeout Explanation = "timeout"
)

// Known reports whether e is one of the explanations this version of the
// Extension API defines; an unknown one is treated as no explanation.
func (e Explanation) Known() bool {
	switch e {
	case ExplainsCompileError, ExplainsAssertion, ExplainsPanic, ExplainsTimeout:
		return true
	}
	return false
}

// SelfExplanatory reports whether d carries a known explanation.
func (d Diagnostic) SelfExplanatory() bool { return d.Explains.Known() }

// EffectiveSeverity is the severity CogWorks acts on: a diagnostic whose
// category is not one the spec (docs/spec.md §10) lists is informational whatever it claims.
func (d Diagnostic) EffectiveSeverity() finding.Severity {
	if !d.Category.Known() {
		return SeverityInformational
	}
	return d.Severity
}

// Blocking reports whether any diagnostic is effectively blocking.
func Blocking(diags []Diagnostic) bool {
	for _, d := range diags {
		if d.EffectiveSeverity() == SeverityBlocking {
			return true
		}
	}
	return false
}
