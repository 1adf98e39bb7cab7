//go:build e2e

package stages_test

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// realshapeCases are the benchmark's cases, one per shape that broke
// CogWorks on a real repository (issue 20). Each want is today's outcome;
// a case that cannot complete names the missing piece of issue 20.
func realshapeCases() []realCase {
	return []realCase{
		{
			// (a) a root-package library with a 2,000-line file holding the
			// bug, and a file the current gofmt would rewrite among the
			// fixed files (legacy.go): the rootlib fixture.
			name: "rootlib", repo: "rootlib", extra: rootlibSiblings,
			title: stagetest.RootlibIssueTitle, body: stagetest.RootlibIssueBody + " " + realIssueMarker, module: "rootlib",
			api:  pipeline.InterfaceDecl{ID: "IF-CLAMP", Name: "Clamp", File: "big.go", Summary: "existing API"},
			plan: stagetest.ClampItem(), fix: stagetest.ClampEdits(stagetest.ClampBug),
			scenarioPkg: ".", scenarioTo: "zz_scenario_test.go", scenarioFilter: "TestScenarioClamp",
			want: realOutcome{completed: true},
		},
		{
			// (b) a test that compares file paths: it fails under -trimpath.
			name: "pathcmp", repo: "realshape/pathcmp",
			title: "where.Base keeps the slash", body: "Base(\"a/b/c.go\") returns \"/c.go\"; it must return \"c.go\". " + realIssueMarker,
			module: "where",
			api:    pipeline.InterfaceDecl{ID: "IF-WHERE", Name: "Base", File: "where/where.go", Summary: "existing API"},
			plan:   realItem("base", "Drop the slash in Base", []string{"where/where.go", "where/where_test.go"}, "Base"),
			fix: realEdits("trim the separator",
				codegen.CodeEdit{Path: "where/where.go", Old: "\treturn file[i:]\n", New: "\treturn file[i+1:]\n"},
				codegen.CodeEdit{Path: "where/where_test.go", Old: "func TestHereIsTheFileOnDisk", New: realTest("Base", `Base("x/y.go")`, `"y.go"`) + "func TestHereIsTheFileOnDisk"}),
			scenarioPkg: "./where", scenarioTo: "where/zz_scenario_test.go", scenarioFilter: "TestScenarioBase",
			want: realOutcome{completed: true},
		},
		{
			// (c) a test that already fails at the base commit.
			name: "basefail", repo: "realshape/basefail",
			title: "calc.Abs returns negative values", body: "Abs(-3) returns -3; it must return 3. " + realIssueMarker,
			module: "calc",
			api:    pipeline.InterfaceDecl{ID: "IF-CALC", Name: "Abs", File: "calc/calc.go", Summary: "existing API"},
			plan:   realItem("abs", "Negate negative values in Abs", []string{"calc/calc.go", "calc/calc_test.go"}, "Abs"),
			fix: realEdits("negate",
				codegen.CodeEdit{Path: "calc/calc.go", Old: "\tif v < 0 {\n\t\treturn v\n", New: "\tif v < 0 {\n\t\treturn -v\n"},
				codegen.CodeEdit{Path: "calc/calc_test.go", Old: "// This test fails", New: realTest("Abs", "Abs(-3)", "3") + "// This test fails"}),
			scenarioPkg: "./calc", scenarioTo: "calc/zz_scenario_test.go", scenarioFilter: "TestScenarioAbs",
			want: realOutcome{completed: true},
		},
		{
			// (d) large testdata next to the code being fixed.
			name: "bigdata", repo: "realshape/bigdata", extra: realCorpus,
			title: "parse.Fields keeps trailing spaces", body: "Fields(\"a ,b\") returns \"a \"; fields must be trimmed on both sides. " + realIssueMarker,
			module: "parse",
			api:    pipeline.InterfaceDecl{ID: "IF-PARSE", Name: "Fields", File: "parse/parse.go", Summary: "existing API"},
			plan:   realItem("fields", "Trim both sides in Fields", []string{"parse/parse.go", "parse/parse_test.go"}, "Fields"),
			fix: realEdits("trim both sides",
				codegen.CodeEdit{Path: "parse/parse.go", Old: `strings.TrimLeft(p, " ")`, New: `strings.TrimSpace(p)`},
				codegen.CodeEdit{Path: "parse/parse_test.go", Old: "func TestFieldsOfTheCorpus", New: realTest("Fields", `Fields("a ,b")[0]`, `"a"`) + "func TestFieldsOfTheCorpus"}),
			scenarioPkg: "./parse", scenarioTo: "parse/zz_scenario_test.go", scenarioFilter: "TestScenarioTrimBothSides",
			want: realOutcome{completed: true},
		},
		{
			// (e) a file the current gofmt would rewrite (a +build line
			// without //go:build, pre-gofmt layout) holds the bug.
			name: "gofmt", repo: "realshape/gofmt",
			title: "legacy.Scale adds instead of multiplying", body: "Scale(3, 4) returns 7; it must return 12. " + realIssueMarker,
			module: "legacy",
			api:    pipeline.InterfaceDecl{ID: "IF-LEGACY", Name: "Scale", File: "legacy/legacy.go", Summary: "existing API"},
			plan:   realItem("scale", "Multiply in Scale", []string{"legacy/legacy.go", "legacy/legacy_test.go"}, "Scale"),
			fix: realEdits("multiply",
				codegen.CodeEdit{Path: "legacy/legacy.go", Old: "    return v+factor\n", New: "    return v*factor\n"},
				codegen.CodeEdit{Path: "legacy/legacy_test.go", Old: "func TestUnit", New: realTest("Scale", "Scale(3, 4)", "12") + "func TestUnit"}),
			scenarioPkg: "./legacy", scenarioTo: "legacy/zz_scenario_test.go", scenarioFilter: "TestScenarioScale",
			want: realOutcome{completed: true},
		},
		{
			// (f) a multi-package module: the issue names the command, the
			// fix is two imports away (cmd/report → render → units).
			name: "twohops", repo: "realshape/twohops",
			title: "report prints 1000 m instead of 1 km", body: "`go run ./cmd/report 1000` prints \"1000 m\"; it must print \"1 km\". " + realIssueMarker,
			module: "cmd",
			api:    pipeline.InterfaceDecl{ID: "IF-UNITS", Name: "Best", File: "internal/units/units.go", Summary: "existing API"},
			plan:   realItemTests(realItem("best", "Use km from 1000 m on", []string{"internal/units/units.go", "internal/units/units_test.go"}, "Best"), "TestBestOneKilometre"),
			fix: realEdits("from 1000 m on",
				codegen.CodeEdit{Path: "internal/units/units.go", Old: "\tif m > 1000 {\n", New: "\tif m >= 1000 {\n"},
				codegen.CodeEdit{Path: "internal/units/units_test.go", Old: "func TestBestMetres", New: "func TestBestOneKilometre(t *testing.T) {\n\tif v, u := Best(1000); v != \"1\" || u != \"km\" {\n\t\tt.Fatalf(\"Best(1000) = %s %s\", v, u)\n\t}\n}\n\nfunc TestBestMetres"}),
			scenarioPkg: "./internal/render", scenarioTo: "internal/render/zz_scenario_test.go", scenarioFilter: "TestScenarioOneKilometre",
			want: realOutcome{completed: true},
		},
		{
			// (g) the fixed package embeds a directory and a file next to
			// its sources (//go:embed): the Go service's workspace held
			// them as links, which the go command refuses to embed, so no
			// fix to such a package could build.
			name: "embed", repo: "realshape/embed",
			title: "welcome mail keeps the spaces around the name", body: "Welcome(\"  Ada \\n\") greets \"Hello   Ada \\n, welcome aboard.\"; the name must be trimmed. " + realIssueMarker,
			module: "mail",
			api:    pipeline.InterfaceDecl{ID: "IF-MAIL", Name: "Welcome", File: "mail/mail.go", Summary: "existing API"},
			plan:   realItemTests(realItem("trim", "Trim the name in Welcome", []string{"mail/mail.go", "mail/mail_test.go"}, "Welcome"), "TestWelcomeTrimmed"),
			fix: realEdits("trim the name",
				codegen.CodeEdit{Path: "mail/mail.go", Old: `map[string]string{"Name": name}`, New: `map[string]string{"Name": strings.TrimSpace(name)}`},
				codegen.CodeEdit{Path: "mail/mail_test.go", Old: "func TestWelcomeSigned", New: "func TestWelcomeTrimmed(t *testing.T) {\n\tif got, err := Welcome(\" Ada \"); err != nil || !strings.HasPrefix(got, \"Hello Ada,\") {\n\t\tt.Fatalf(\"Welcome = %q, %v\", got, err)\n\t}\n}\n\nfunc TestWelcomeSigned"}),
			scenarioPkg: "./mail", scenarioTo: "mail/zz_scenario_test.go", scenarioFilter: "TestScenarioWelcomeTrimsName",
			want: realOutcome{completed: true},
		},
	}
}

// realItem is a case's plan item: the files to edit and the symbol.
func realItem(id, title string, files []string, symbol string) planner.SubWorkItem {
	return planner.SubWorkItem{ID: id, Title: title, Description: title + ", and test it.",
		Files: files, Symbols: []string{symbol}, Tests: "Test" + symbol + "Regression", DependsOn: []string{}}
}

// realItemTests is it with the plan naming tests: the ones the fix writes
// (CogWorks requires the planned tests to run).
func realItemTests(it planner.SubWorkItem, tests string) planner.SubWorkItem {
	it.Tests = tests
	return it
}

func realEdits(notes string, edits ...codegen.CodeEdit) codegen.CodeOutput {
	return codegen.CodeOutput{Notes: notes, Edits: edits}
}

// realTest is a regression test of call, placed before an existing test.
func realTest(name, call, want string) string {
	return fmt.Sprintf("func Test%sRegression(t *testing.T) {\n\tif got := %s; got != %s {\n\t\tt.Fatalf(\"%s = %%v, want %%v\", got, %s)\n\t}\n}\n\n",
		name, call, want, strings.ReplaceAll(call, `"`, `\"`), want)
}

// rootlibSiblings generates 16 more root-package files so the rootlib
// case has the ~30 files of the root libraries that broke code generation
// (pflag, BurntSushi/toml, dominikbraun/graph).
func rootlibSiblings() map[string]string {
	files := map[string]string{}
	for i := 1; i <= 16; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package rootlib\n\n// Sibling%02d is one of the root package's many small helpers.\nfunc Sibling%02d(v int) int {\n\treturn Clamp(v+%d, 0, 100)\n}\n", i, i, i)
		fmt.Fprintf(&b, "\n// Label%02d names the helper.\nconst Label%02d = \"sibling-%02d\"\n", i, i, i)
		files[fmt.Sprintf("sibling%02d.go", i)] = b.String()
	}
	return files
}

// realCorpus generates the bigdata case's 1.2 MB fixture (generated so the
// repository stays small).
func realCorpus() map[string]string {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "row%06d,value %d,%x\n", i, i*7, i*13)
	}
	return map[string]string{"parse/testdata/corpus.csv": b.String()}
}
