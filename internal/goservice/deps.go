package goservice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// offlineEnv keeps dependency checks from downloading anything: modules must
// already be in the environment's module cache.
var offlineEnv = []string{"GOPROXY=off", "GOFLAGS=-mod=readonly"}

// listedPackage is the subset of `go list -json` output the service reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Imports    []string
	Error      *listError
	DepsErrors []*listError
}

type listError struct {
	Pos string
	Err string
}

// goList runs go list -e -json with args and decodes the package stream.
func (s *service) goList(ctx context.Context, ws *workspace, env []string, args ...string) ([]listedPackage, result, error) {
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout, env: env, offline: env != nil}, append([]string{"list", "-e", "-json"}, args...)...)
	if err != nil {
		return nil, res, err
	}
	pkgs, err := decodeList(res.stdout)
	if err != nil {
		return nil, res, err
	}
	return pkgs, res, nil
}

// decodeList decodes the package stream of go list -json.
func decodeList(stdout []byte) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, extserver.Errorf(domain.CodeToolFailed, "decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

// dependencyGraph lists the workspace's packages and their direct imports.
func (s *service) dependencyGraph(ctx context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	pkgs, res, err := s.goList(ctx, ws, nil, ws.packagePatterns("./...")...)
	if err != nil {
		return nil, err
	}
	if res.exitCode != 0 && len(pkgs) == 0 {
		return nil, extserver.Errorf(domain.CodeToolFailed, "go list ./...: %s", strings.TrimSpace(string(res.stderr)))
	}
	out := domain.DependencyGraphResult{Packages: []domain.PackageNode{}}
	for _, p := range pkgs {
		imports := p.Imports
		if imports == nil {
			imports = []string{}
		}
		out.Packages = append(out.Packages, domain.PackageNode{Path: p.ImportPath, Dir: ws.relPath(p.Dir), Imports: imports})
	}
	sort.Slice(out.Packages, func(i, j int) bool { return out.Packages[i].Path < out.Packages[j].Path })
	return out, nil
}

// validateDeps checks that go.mod parses, that every imported package
// resolves from the module cache without network access, and that the
// cached modules match go.sum.
func (s *service) validateDeps(ctx context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	diags := []domain.Diagnostic{}
	depErr := func(file string, loc domain.Location, msg string) {
		diags = append(diags, domain.Diagnostic{Artifact: file, Location: loc, Severity: domain.SeverityBlocking,
			Category: domain.CategoryDependencyError, Message: msg})
	}
	data, err := ws.readFile("go.mod")
	if err != nil {
		depErr("go.mod", domain.Location{File: "go.mod"}, "no go.mod at the repository root")
		return domain.DiagnosticsResult{Diagnostics: diags}, nil
	}
	if mod := goModDiagnostics(data); len(mod) > 0 {
		return domain.DiagnosticsResult{Diagnostics: mod}, nil
	}
	pkgs, _, err := s.goList(ctx, ws, offlineEnv, append([]string{"-deps"}, ws.packagePatterns("./...")...)...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	diags = append(diags, ws.listDiagnostics(pkgs, seen)...)
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout, env: offlineEnv, offline: true}, "mod", "verify")
	if err != nil {
		return nil, err
	}
	if res.exitCode != 0 {
		for _, line := range strings.Split(strings.TrimSpace(string(res.stderr)+string(res.stdout)), "\n") {
			if line = strings.TrimSpace(line); line != "" && !seen[line] {
				seen[line] = true
				depErr("go.sum", domain.Location{File: "go.sum"}, "go mod verify: "+line)
			}
		}
	}
	return domain.DiagnosticsResult{Diagnostics: diags}, nil
}

// goModDiagnostics reports each error golang.org/x/mod/modfile finds in
// the go.mod file data, at its line and column.
func goModDiagnostics(data []byte) []domain.Diagnostic {
	_, err := modfile.Parse("go.mod", data, nil)
	if err == nil {
		return nil
	}
	at := func(loc domain.Location, msg string) domain.Diagnostic {
		return domain.Diagnostic{Artifact: "go.mod", Location: loc, Severity: domain.SeverityBlocking,
			Category: domain.CategoryDependencyError, Message: "go.mod does not parse: " + msg}
	}
	var list modfile.ErrorList
	if !errors.As(err, &list) {
		return []domain.Diagnostic{at(domain.Location{File: "go.mod"}, err.Error())}
	}
	var out []domain.Diagnostic
	for _, e := range list {
		out = append(out, at(domain.Location{File: "go.mod", Line: e.Pos.Line, Column: e.Pos.LineRune}, e.Err.Error()))
	}
	return out
}

// listDiagnostics reports the package errors of `go list -e -json -deps`
// once each (seen records them), located at the importing file when go
// list names one in this workspace and at go.mod otherwise.
func (w *workspace) listDiagnostics(pkgs []listedPackage, seen map[string]bool) []domain.Diagnostic {
	var out []domain.Diagnostic
	for _, p := range pkgs {
		errs := p.DepsErrors
		if p.Error != nil {
			errs = append([]*listError{p.Error}, errs...)
		}
		for _, e := range errs {
			if e == nil || seen[e.Err] {
				continue
			}
			seen[e.Err] = true
			file, loc := "go.mod", domain.Location{File: "go.mod"}
			if f, line, col, ok := parsePosn(e.Pos); ok {
				if rel := w.visiblePath(f); rel != "" {
					file, loc = rel, domain.Location{File: rel, Line: line, Column: col}
				}
			}
			out = append(out, domain.Diagnostic{Artifact: file, Location: loc, Severity: domain.SeverityBlocking,
				Category: domain.CategoryDependencyError, Message: e.Err})
		}
	}
	return out
}
