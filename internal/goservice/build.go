package goservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"go/scanner"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// analyzerName matches a go vet analyzer flag name.
var analyzerName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// nonNil keeps empty diagnostic lists encoding as [] rather than null.
func nonNil(d []domain.Diagnostic) []domain.Diagnostic {
	if d == nil {
		return []domain.Diagnostic{}
	}
	return d
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

// validate parses the request's Go files, then runs go build -json ./...
// and, when it compiles, go vet -json ./....
func (s *service) validate(ctx context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	var diags []domain.Diagnostic
	for _, a := range req.Artifacts {
		if strings.HasSuffix(a.Path, ".go") && !a.Delete {
			diags = append(diags, syntaxDiagnostics(a.Path, parseErrors([]byte(a.Content)))...)
		}
	}
	if len(diags) > 0 {
		return domain.DiagnosticsResult{Diagnostics: diags}, nil // nothing to build
	}
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout}, append([]string{"build", "-json", "-o", os.DevNull}, ws.packagePatterns("./...")...)...)
	if err != nil {
		return nil, err
	}
	if res.exitCode != 0 {
		outputs, loose := buildOutputs(res.stdout)
		for _, pkg := range slices.Sorted(maps.Keys(outputs)) {
			d, l := ws.compileDiagnostics(outputs[pkg])
			diags, loose = append(diags, d...), append(loose, l...)
		}
		if len(diags) == 0 {
			loose = append(loose, strings.TrimSpace(string(res.stderr)))
			diags = append(diags, looseDiagnostic(loose, domain.CategoryTypeError))
		}
		return domain.DiagnosticsResult{Diagnostics: diags}, nil
	}
	vet, err := s.vet(ctx, ws, nil)
	if err != nil {
		return nil, err
	}
	return domain.DiagnosticsResult{Diagnostics: nonNil(vet)}, nil
}

// reviewRules runs go vet with the requested analyzers.
func (s *service) reviewRules(ctx context.Context, req domain.Request) (any, error) {
	var p domain.ReviewRulesParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params: %v", err)
		}
	}
	for _, a := range p.Analyzers {
		if !analyzerName.MatchString(a) {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params.analyzers: %q is not an analyzer name", a)
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

// vet runs go vet -json; a package that does not type-check makes vet
// print compiler errors on stderr instead, and exit non-zero.
func (s *service) vet(ctx context.Context, ws *workspace, analyzers []string) ([]domain.Diagnostic, error) {
	args := []string{"vet", "-json"}
	for _, a := range analyzers {
		args = append(args, "-"+a)
	}
	args = append(args, ws.packagePatterns("./...")...)
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout}, args...)
	if err != nil {
		return nil, err
	}
	diags, err := ws.vetDiagnostics(res.stdout)
	if err != nil {
		return nil, err
	}
	if res.exitCode != 0 {
		compile, loose := ws.compileDiagnostics(string(res.stderr))
		diags = append(diags, compile...)
		if len(compile) == 0 {
			diags = append(diags, looseDiagnostic(loose, domain.CategoryTypeError))
		}
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
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "artifacts[%d]: %v", i, err)
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

// syntaxDiagnostic converts the error of format.Source, a go/scanner
// error list, into a diagnostic for file at its first error.
func syntaxDiagnostic(file string, err error) domain.Diagnostic {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		// list.Error() would name the file by the path it was parsed
		// under, which may be the workspace's.
		d := syntaxDiagnostics(file, list[:1])[0]
		if len(list) > 1 {
			d.Message += fmt.Sprintf(" (and %d more errors)", len(list)-1)
		}
		return d
	}
	return domain.Diagnostic{
		Artifact: file, Location: domain.Location{File: file},
		Severity: domain.SeverityBlocking, Category: domain.CategorySyntaxError, Message: err.Error(),
	}
}
