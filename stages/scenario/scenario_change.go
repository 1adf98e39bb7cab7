package scenario

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testverdict"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// contractDirective finds the interface ids a file binds values to.
var contractDirective = regexp.MustCompile(`//cogworks:contract\s+(\S+)`)

// selectScenarios chooses the scenarios that exercise what the SWI's
// change touches, computed by CogWorks from the files code generation
// committed (own) and their versions on the branch the SWI started from,
// not from the plan the model wrote (issue 25). The interface ids are
// those interface design assigned (a human approved them) and those the
// change's files bind. The exported symbols the change alters cost a read
// per changed Go file, so they are computed only when a scenario is left
// that the paths and interfaces did not select. The candidates are the
// executor's held-out scenarios (e.Deps.Scenarios).
func (e Executor) selectScenarios(ctx context.Context, in engine.StageInput, rec pipeline.SWI, own map[string]string, interfaces []string) (scenario.Selection, error) {
	all := e.Deps.Scenarios
	c := scenario.Change{Paths: slices.Sorted(maps.Keys(own)), Interfaces: slices.Clone(interfaces)}
	for _, p := range c.Paths {
		for _, m := range contractDirective.FindAllStringSubmatch(own[p], -1) {
			c.Interfaces = append(c.Interfaces, m[1])
		}
	}
	slices.Sort(c.Interfaces)
	c.Interfaces = slices.Compact(c.Interfaces)
	sel := scenario.SelectChange(all, c)
	if len(sel.NotApplied) == 0 {
		return sel, nil
	}
	var err error
	if c.Symbols, err = changedSymbols(ctx, e.GitHub, in.Repo, stagekit.SWIBase(in.Snapshot, rec), own); err != nil {
		return sel, err
	}
	return scenario.SelectChange(all, c), nil
}

// changedSymbols lists the exported names the change's Go files (not
// their tests) add, rewrite or remove compared with base.
func changedSymbols(ctx context.Context, gh stagekit.RepoReader, repo github.Repo, base string, own map[string]string) ([]string, error) {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(own)) {
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			continue
		}
		old, err := gh.GetFile(ctx, repo, p, base)
		if err != nil && !errors.Is(err, github.ErrNotFound) {
			return nil, fmt.Errorf("read %s at %s for the scenario selection: %w", p, base, err)
		}
		out = append(out, changedExported(p, string(old), own[p])...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// changedExported lists the exported names whose top-level declaration
// (a func, method, type, const or var) the change adds, rewrites or
// removes, comparing the declarations' source text. A file that does not
// parse contributes every exported name it can be read for: none.
func changedExported(file, old, now string) []string {
	before, after := exportedDecls(file, old), exportedDecls(file, now)
	var out []string
	for name, src := range after {
		if before[name] != src {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// exportedDecls maps each exported top-level name of a Go file (a
// method by its own name) to its declaration's source text.
func exportedDecls(file, src string) map[string]string {
	out := map[string]string{}
	if src == "" {
		return out
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return out
	}
	text := func(n ast.Node) string {
		var b strings.Builder
		if err := printer.Fprint(&b, fset, n); err != nil {
			return ""
		}
		return b.String()
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				out[d.Name.Name] += text(d)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out[s.Name.Name] = text(s)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out[n.Name] = text(s)
						}
					}
				}
			}
		}
	}
	return out
}

// scenarioTests are the tests a scenario run must show: those its own
// files declare that its filter selects (a filter that does not compile
// as a regular expression selects them all). The domain service that ran
// them declares them (declared, simulate's declared_tests for the
// overlay's paths); a Go test file it declares nothing for is read here.
func scenarioTests(run scenario.Run, declared []domain.TestDeclaration) []testverdict.Decl {
	var re *regexp.Regexp
	if run.Filter != "" {
		re, _ = regexp.Compile(strings.SplitN(run.Filter, "/", 2)[0])
	}
	var out []testverdict.Decl
	for _, to := range slices.Sorted(maps.Keys(run.Overlay)) {
		decls := testverdict.Decls(testverdict.DeclaredIn(declared, to))
		if len(decls) == 0 {
			decls = testverdict.TestFuncs(to, run.Overlay[to])
		}
		for _, d := range decls {
			if re == nil || re.MatchString(d.Name) {
				out = append(out, d)
			}
		}
	}
	return out
}

// scenarioProblems judges a scenario run with the code generation rules
// (package testverdict), its own tests as the required ones.
func scenarioProblems(res domain.SimulateResult, run scenario.Run) []string {
	return testverdict.Judge(testverdict.Input{Head: res, Required: scenarioTests(run, res.DeclaredTests)}).Problems
}
