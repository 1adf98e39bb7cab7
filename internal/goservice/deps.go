package goservice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
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
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(res.stdout))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, res, failf(domain.CodeToolFailed, "decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, res, nil
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
		return nil, failf(domain.CodeToolFailed, "go list ./...: %s", strings.TrimSpace(string(res.stderr)))
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

// errPos matches the "file:line:col" position of a go list error.
var errPos = regexp.MustCompile(`^(.+?):(\d+)(?::(\d+))?$`)

// modPos matches "path/go.mod:line: message".
var modPos = regexp.MustCompile(`^(\S*go\.mod):(\d+)(?::\d+)?: (.+)$`)

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
	if _, err := os.Stat(filepath.Join(ws.dir, "go.mod")); err != nil {
		depErr("go.mod", domain.Location{File: "go.mod"}, "no go.mod at the repository root")
		return domain.DiagnosticsResult{Diagnostics: diags}, nil
	}
	res, err := s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout, env: offlineEnv, offline: true}, "mod", "edit", "-json")
	if err != nil {
		return nil, err
	}
	if res.exitCode != 0 {
		found := false
		for _, line := range strings.Split(string(res.stderr), "\n") {
			if m := modPos.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				n, _ := strconv.Atoi(m[2])
				depErr("go.mod", domain.Location{File: "go.mod", Line: n}, "go.mod does not parse: "+m[3])
				found = true
			}
		}
		if !found {
			depErr("go.mod", domain.Location{File: "go.mod"}, "go.mod does not parse: "+strings.TrimSpace(string(res.stderr)))
		}
		return domain.DiagnosticsResult{Diagnostics: diags}, nil
	}
	pkgs, _, err := s.goList(ctx, ws, offlineEnv, append([]string{"-deps"}, ws.packagePatterns("./...")...)...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
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
			if m := errPos.FindStringSubmatch(e.Pos); m != nil {
				file = ws.relPath(m[1])
				line, _ := strconv.Atoi(m[2])
				col, _ := strconv.Atoi(m[3])
				loc = domain.Location{File: file, Line: line, Column: col}
			}
			depErr(file, loc, e.Err)
		}
	}
	res, err = s.run.goCmd(ctx, ws, step{timeout: s.opts.CommandTimeout, env: offlineEnv, offline: true}, "mod", "verify")
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
