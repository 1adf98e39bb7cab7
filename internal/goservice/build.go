package goservice

import (
	"context"
	"encoding/json"
	"go/format"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// posLine matches "file.go:line:col: message" (column optional) as printed by
// go build and go vet.
var posLine = regexp.MustCompile(`^(?:vet: )?(\S+?\.go):(\d+)(?::(\d+))?: (.+)$`)

// analyzerName matches a go vet analyzer flag name.
var analyzerName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// nonNil keeps empty diagnostic lists encoding as [] rather than null.
func nonNil(d []domain.Diagnostic) []domain.Diagnostic {
	if d == nil {
		return []domain.Diagnostic{}
	}
	return d
}

// toolDiagnostics parses compiler or vet output into diagnostics. Lines that
// carry no position are returned separately so that callers can report them
// when nothing else explains a failure.
func (w *workspace) toolDiagnostics(output string, classify func(msg string) (domain.Category, domain.Severity)) ([]domain.Diagnostic, []string) {
	var diags []domain.Diagnostic
	var loose []string
	for _, line := range strings.Split(output, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")) && len(diags) > 0 {
			diags[len(diags)-1].Message += "\n" + strings.TrimSpace(line)
			continue
		}
		m := posLine.FindStringSubmatch(line)
		if m == nil {
			loose = append(loose, line)
			continue
		}
		file := w.relPath(m[1])
		lineNo, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		cat, sev := classify(m[4])
		diags = append(diags, domain.Diagnostic{
			Artifact: file,
			Location: domain.Location{File: file, Line: lineNo, Column: col},
			Severity: sev, Category: cat, Message: m[4],
		})
	}
	return diags, loose
}

// classifyCompile tells syntax errors from type errors.
func classifyCompile(msg string) (domain.Category, domain.Severity) {
	if strings.HasPrefix(msg, "syntax error") || strings.HasPrefix(msg, "expected ") ||
		strings.Contains(msg, "illegal character") || strings.HasPrefix(msg, "invalid character") {
		return domain.CategorySyntaxError, domain.SeverityBlocking
	}
	return domain.CategoryTypeError, domain.SeverityBlocking
}

func classifyVet(string) (domain.Category, domain.Severity) {
	return domain.CategoryStyleViolation, domain.SeverityWarning
}

// isModuleProblem reports whether unlocated toolchain output is about
// modules rather than code.
func isModuleProblem(msg string) bool {
	for _, s := range []string{"go.mod", "go.sum", "module", "cannot find package", "no required module"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// looseDiagnostic reports unlocated output of a failed command.
func looseDiagnostic(loose []string, fallback domain.Category) domain.Diagnostic {
	msg := strings.Join(loose, "\n")
	cat := fallback
	if isModuleProblem(msg) {
		cat = domain.CategoryDependencyError
	}
	return domain.Diagnostic{Severity: domain.SeverityBlocking, Category: cat, Message: msg}
}

// validate runs go build ./... and, when it compiles, go vet ./....
func (s *service) validate(ctx context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout}, append([]string{"build", "-o", os.DevNull}, ws.packagePatterns("./...")...)...)
	if err != nil {
		return nil, err
	}
	diags, loose := ws.toolDiagnostics(string(res.stderr), classifyCompile)
	if res.exitCode != 0 {
		if len(diags) == 0 {
			diags = append(diags, looseDiagnostic(loose, domain.CategoryTypeError))
		}
		return domain.DiagnosticsResult{Diagnostics: nonNil(diags)}, nil
	}
	vet, err := s.vet(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	return domain.DiagnosticsResult{Diagnostics: nonNil(append(diags, vet...))}, nil
}

// reviewRules runs go vet with the requested analyzers.
func (s *service) reviewRules(ctx context.Context, req domain.Request) (any, error) {
	var p domain.ReviewRulesParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, failf(domain.CodeInvalidRequest, "params: %v", err)
		}
	}
	for _, a := range p.Analyzers {
		if !analyzerName.MatchString(a) {
			return nil, failf(domain.CodeInvalidRequest, "params.analyzers: %q is not an analyzer name", a)
		}
	}
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	diags, err := s.vet(ctx, ws, p.Analyzers)
	if err != nil {
		return nil, err
	}
	return domain.DiagnosticsResult{Diagnostics: diags}, nil
}

func (s *service) vet(ctx context.Context, ws *workspace, analyzers []string) ([]domain.Diagnostic, error) {
	args := []string{"vet"}
	for _, a := range analyzers {
		args = append(args, "-"+a)
	}
	args = append(args, ws.packagePatterns("./...")...)
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout}, args...)
	if err != nil {
		return nil, err
	}
	diags, loose := ws.toolDiagnostics(string(res.stderr), classifyVet)
	if res.exitCode != 0 && len(diags) == 0 {
		diags = append(diags, looseDiagnostic(loose, domain.CategoryTypeError))
	}
	return nonNil(diags), nil
}

// normalise formats every .go artifact with gofmt rules; other artifacts
// are returned unchanged. A file that does not parse yields a syntax_error
// diagnostic and is returned as given.
func (s *service) normalise(_ context.Context, req domain.Request) (any, error) {
	out := domain.NormaliseResult{Diagnostics: []domain.Diagnostic{}, Artifacts: []domain.Artifact{}}
	for i, a := range req.Artifacts {
		if err := checkArtifactPath(a.Path); err != nil {
			return nil, failf(domain.CodeInvalidRequest, "artifacts[%d]: %v", i, err)
		}
		if !strings.HasSuffix(a.Path, ".go") {
			out.Artifacts = append(out.Artifacts, a)
			continue
		}
		formatted, err := format.Source([]byte(a.Content))
		if err != nil {
			out.Diagnostics = append(out.Diagnostics, syntaxDiagnostic(a.Path, err))
			out.Artifacts = append(out.Artifacts, a)
			continue
		}
		if string(formatted) != a.Content {
			out.Changed = true
		}
		out.Artifacts = append(out.Artifacts, domain.Artifact{Path: a.Path, Content: string(formatted)})
	}
	return out, nil
}

// syntaxDiagnostic converts a go/scanner error list rendered as
// "line:col: msg" into a diagnostic for file.
func syntaxDiagnostic(file string, err error) domain.Diagnostic {
	d := domain.Diagnostic{
		Artifact: file, Location: domain.Location{File: file},
		Severity: domain.SeverityBlocking, Category: domain.CategorySyntaxError, Message: err.Error(),
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	parts := strings.SplitN(first, ":", 3)
	if len(parts) == 3 {
		if l, e := strconv.Atoi(parts[0]); e == nil {
			d.Location.Line = l
			if c, e := strconv.Atoi(parts[1]); e == nil {
				d.Location.Column = c
			}
			d.Message = strings.TrimSpace(parts[2])
		}
	}
	return d
}
