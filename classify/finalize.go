package classify

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/cogworks/cogworks/internal/escalation"
)

// Thresholds are the configured scope limits ([classification] in
// .cogworks/config.toml). A zero limit means "no limit".
type Thresholds struct {
	MaxFiles      int
	MaxInterfaces int
}

// ReasonScopeExceeded is the escalation.Error Code used by CheckScope.
const ReasonScopeExceeded = "scope_exceeded"

// Finalize applies the safety override: if any affected module is one of
// safetyModules or nested under one (path prefix on segment boundaries, so
// "brake" matches "brake/abs" but not "brakes"), the result is
// safety-affecting. A classification the LLM already marked safety-affecting
// stays so. The input is not modified.
func Finalize(c Classification, safetyModules []string) Classification {
	out := c
	out.AffectedModules = append([]string(nil), c.AffectedModules...)
	if out.SafetyAffecting {
		return out
	}
	for _, m := range c.AffectedModules {
		for _, s := range safetyModules {
			if underModule(m, s) {
				out.SafetyAffecting = true
				return out
			}
		}
	}
	return out
}

// underModule reports whether module is safety or nested under it.
func underModule(module, safety string) bool {
	m := normaliseModule(module)
	s := normaliseModule(safety)
	if m == "" || s == "" {
		return false
	}
	return m == s || strings.HasPrefix(m, s+"/")
}

func normaliseModule(m string) string {
	m = strings.TrimSpace(m)
	if m == "" {
		return ""
	}
	m = path.Clean(strings.ReplaceAll(m, "\\", "/"))
	m = strings.TrimPrefix(m, "./")
	return strings.Trim(m, "/")
}

// CheckScope returns an *escalation.Error when the estimated scope exceeds a
// threshold, nil when the classification may proceed.
func CheckScope(c Classification, t Thresholds) *escalation.Error {
	var over []string
	if t.MaxFiles > 0 && c.EstimatedScope.Files > t.MaxFiles {
		over = append(over, fmt.Sprintf("estimated_scope.files %d exceeds max_scope_files %d", c.EstimatedScope.Files, t.MaxFiles))
	}
	if t.MaxInterfaces > 0 && c.EstimatedScope.Interfaces > t.MaxInterfaces {
		over = append(over, fmt.Sprintf("estimated_scope.interfaces %d exceeds max_scope_interfaces %d", c.EstimatedScope.Interfaces, t.MaxInterfaces))
	}
	if len(over) == 0 {
		return nil
	}
	return &escalation.Error{Code: ReasonScopeExceeded, Reason: strings.Join(over, "; ")}
}

// Validate checks the classification's enums and fields, returning every
// problem found (joined), each naming its field.
func Validate(c Classification) error {
	var errs []error
	if !c.Type.Valid() {
		errs = append(errs, fmt.Errorf("type: invalid value %q (want one of %s)", c.Type, strings.Join(typeNames(), ", ")))
	}
	for i, m := range c.AffectedModules {
		if strings.TrimSpace(m) == "" {
			errs = append(errs, fmt.Errorf("affected_modules[%d]: empty module name", i))
		}
	}
	if c.EstimatedScope.Files < 0 {
		errs = append(errs, fmt.Errorf("estimated_scope.files: must be >= 0, got %d", c.EstimatedScope.Files))
	}
	if c.EstimatedScope.Interfaces < 0 {
		errs = append(errs, fmt.Errorf("estimated_scope.interfaces: must be >= 0, got %d", c.EstimatedScope.Interfaces))
	}
	switch c.EstimatedScope.Complexity {
	case "low", "medium", "high":
	default:
		errs = append(errs, fmt.Errorf("estimated_scope.complexity: invalid value %q (want low, medium or high)", c.EstimatedScope.Complexity))
	}
	if strings.TrimSpace(c.Rationale) == "" {
		errs = append(errs, errors.New("rationale: must not be empty"))
	}
	return errors.Join(errs...)
}

// Types returns every valid classification type.
func Types() []Type {
	return []Type{TypeFeature, TypeBugFix, TypeRefactor, TypeConfigChange, TypeDocumentation, TypeDependencyUpdate}
}

// Valid reports whether t is a known classification type.
func (t Type) Valid() bool {
	for _, v := range Types() {
		if v == t {
			return true
		}
	}
	return false
}

func typeNames() []string {
	ts := Types()
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}
