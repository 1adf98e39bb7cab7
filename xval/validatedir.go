package xval

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/cogworks/cogworks/finding"
)

// Report is the outcome of validating a registry directory.
type Report struct {
	// Registry holds the interfaces that loaded (possibly partial when
	// loading failed).
	Registry *Registry
	// Findings are the registry checks' findings, sorted.
	Findings []Finding
}

// Blocking returns the blocking findings.
func (r Report) Blocking() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == finding.Blocking {
			out = append(out, f)
		}
	}
	return out
}

// ValidateDir loads the registry in dir, validates every file against the
// schema and runs Check(services) and CheckRefs on the repository at
// repoRoot. It is what `cogworks registry validate` and the step function
// (before any stage, ASSERT-XDOM-001/002) call. File names in messages are
// relative to repoRoot when dir is inside it.
//
// The error is non-nil when the registry cannot be used: a file failed to
// load (the joined load errors, each naming file, interface and field) or a
// check produced a blocking finding (a *FindingsError). The report is
// returned in both cases so callers can show every finding. A missing
// directory is an empty, valid registry.
func ValidateDir(dir, repoRoot string, services []ServiceInfo) (Report, error) {
	display := func(p string) string {
		if repoRoot == "" {
			return p
		}
		absRoot, err1 := filepath.Abs(repoRoot)
		absP, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return p
		}
		rel, err := filepath.Rel(absRoot, absP)
		if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
			return p
		}
		return filepath.ToSlash(rel)
	}
	reg, loadErr := loadRegistry(dir, display)
	if reg == nil {
		return Report{}, loadErr
	}
	rep := Report{Registry: reg, Findings: reg.Check(services)}
	if repoRoot != "" {
		rep.Findings = append(rep.Findings, reg.CheckRefs(os.DirFS(repoRoot))...)
	} else {
		rep.Findings = append(rep.Findings, reg.CheckRefs(nil)...)
	}
	sortFindings(rep.Findings)
	var errs []error
	if loadErr != nil {
		errs = append(errs, loadErr)
	}
	if b := rep.Blocking(); len(b) > 0 {
		errs = append(errs, &FindingsError{Findings: b})
	}
	return rep, errors.Join(errs...)
}
