package cmdservice

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/config"
)

// Domain is a [[domains]] table resolved against its preset: what the
// service runs. Commands are shell lines for /bin/sh -c, run at the
// workspace root; {python} in them is replaced by the interpreter the
// service found (see findPython).
type Domain struct {
	Name          string
	ArtifactTypes []string
	Setup         string
	SetupNetwork  bool
	Format        string
	// Checks are the lint and type-check commands, each read as
	// LintOutput says.
	Checks     []string
	LintOutput string
	Test       string
	TestOne    string
	// TestOutput is "junit" (reports written to $COGWORKS_REPORT_DIR) or
	// "cargo" (libtest lines on the output; a JUnit report, when one was
	// written, is preferred).
	TestOutput string
}

// pyCompile reports syntax errors of every .py file as compiler-style
// lines, with the standard library only: the fallback when neither ruff
// nor pyflakes is installed.
const pyCompile = `{python} -c 'import pathlib
for p in sorted(pathlib.Path(".").rglob("*.py")):
    if any(s.startswith(".") or s in ("node_modules", "__pycache__") for s in p.parts): continue
    try: compile(p.read_bytes(), str(p), "exec")
    except SyntaxError as e: print(f"{p}:{e.lineno or 0}:{e.offset or 0}: SyntaxError: {e.msg}")
    except ValueError as e: print(f"{p}:1:1: {e}")'`

// pytestPrelude prepares a pytest run of a repository as it is checked
// out, with no network to install it: a src/ layout's packages are put on
// PYTHONPATH (the package is not installed, `pip install -e .` needs the
// network), and a plugin is written that accepts, and ignores, the
// options of pytest-cov, pytest-xdist and pytest-timeout when they are
// not installed, so an addopts naming them (python-semver's `--cov`)
// does not stop every run with "unrecognized arguments". Coverage,
// parallelism and timeouts do not change a test's verdict; the service
// has its own timeout.
const pytestPrelude = `if [ -d src ]; then export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"; fi; ` +
	`cw_plugins=$(mktemp -d) && cat > "$cw_plugins/cogworks_pytest_compat.py" <<'COGWORKS_EOF'
import importlib.util

def pytest_addoption(parser):
    g = parser.getgroup("cogworks", "options of plugins that are not installed (ignored)")
    if importlib.util.find_spec("pytest_cov") is None:
        for o in ("--cov", "--cov-report", "--cov-config", "--cov-fail-under", "--cov-context"):
            g.addoption(o, action="append", nargs="?", default=[])
        for o in ("--no-cov-on-fail", "--no-cov", "--cov-append", "--cov-branch"):
            g.addoption(o, action="store_true")
    if importlib.util.find_spec("xdist") is None:
        g._addoption("-n", "--numprocesses", action="store")
        g.addoption("--dist", action="store")
    if importlib.util.find_spec("pytest_timeout") is None:
        g.addoption("--timeout", action="store")
        g.addoption("--timeout-method", action="store")
COGWORKS_EOF
export PYTHONPATH="$cw_plugins${PYTHONPATH:+:$PYTHONPATH}"; `

// pytest runs the tests with a JUnit report; extra follows the options.
func pytest(extra string) string {
	return pytestPrelude + `{python} -m pytest -q -p no:cacheprovider -p cogworks_pytest_compat -o junit_family=xunit1 --junitxml="$COGWORKS_REPORT_DIR/junit.xml"` + extra
}

// presets are the starting points of config.DomainPresets.
var presets = map[string]Domain{
	"python": {
		ArtifactTypes: []string{".py", ".pyi"},
		Format:        `if command -v ruff >/dev/null 2>&1; then ruff format -q .; fi`,
		Checks: []string{`if command -v ruff >/dev/null 2>&1; then ruff check --no-cache --output-format sarif .; ` +
			`elif {python} -m pyflakes --version >/dev/null 2>&1; then {python} -m pyflakes .; else ` + pyCompile + `; fi`},
		Test:       pytest(""),
		TestOne:    pytest(" -k {filter}"),
		TestOutput: "junit",
	},
	"typescript": jsPreset([]string{".ts", ".tsx", ".mts", ".cts"},
		`if [ -x node_modules/.bin/tsc ]; then node_modules/.bin/tsc --noEmit --pretty false; fi`),
	"javascript": jsPreset([]string{".js", ".jsx", ".mjs", ".cjs"}, ""),
	"rust": {
		ArtifactTypes: []string{".rs", "Cargo.toml"},
		Format:        `cargo fmt --all`,
		Checks: []string{`if cargo clippy --version >/dev/null 2>&1; then cargo clippy --offline --all-targets --message-format short; ` +
			`else cargo check --offline --all-targets --message-format short; fi`},
		Test: `if cargo nextest --version >/dev/null 2>&1; then ` +
			`mkdir -p .config; [ -f .config/nextest.toml ] || printf '[profile.cogworks.junit]\npath = "junit.xml"\n' > .config/nextest.toml; ` +
			`rm -f target/nextest/cogworks/junit.xml; cargo nextest run --offline --no-fail-fast --profile cogworks; s=$?; ` +
			`cp target/nextest/cogworks/junit.xml "$COGWORKS_REPORT_DIR/" 2>/dev/null; exit $s; ` +
			`else cargo test --offline --no-fail-fast; fi`,
		TestOne:    `cargo test --offline --no-fail-fast -- {filter}`,
		TestOutput: "cargo",
	},
	"java": {
		ArtifactTypes: []string{".java", "pom.xml"},
		Checks:        []string{`mvn -q -o -B -Dmaven.repo.local=.m2/repository test-compile`},
		Test:          surefire(""),
		TestOne:       surefire(" -Dtest={filter}"),
		TestOutput:    "junit",
	},
}

// nodePrelude turns off V8's WebAssembly guard regions where node knows
// the flag (20.17 and later): each Wasm memory otherwise reserves 10 GiB
// of address space, which the sandbox's RLIMIT_AS (8 GiB) refuses, and
// vitest 4 (through its Wasm parsers) dies with "WebAssembly.instantiate():
// Out of memory" before running a test. Bounds checks replace the guards;
// the sandbox's limits stay as they are.
const nodePrelude = `if node --disable-wasm-trap-handler -e 0 >/dev/null 2>&1; then ` +
	`export NODE_OPTIONS="--disable-wasm-trap-handler${NODE_OPTIONS:+ $NODE_OPTIONS}"; fi; `

// jsPreset runs vitest or jest with a JUnit reporter when the package has
// one installed, else its own `npm test` (which writes no report: such a
// run fails with "no test report" until a reporter is configured).
func jsPreset(types []string, typecheck string) Domain {
	checks := []string{nodePrelude + `if [ -d node_modules/@microsoft/eslint-formatter-sarif ]; then node_modules/.bin/eslint -f @microsoft/eslint-formatter-sarif .; fi`}
	if typecheck != "" {
		checks = append([]string{nodePrelude + typecheck}, checks...)
	}
	test := func(filter string) string {
		return nodePrelude + `if [ -x node_modules/.bin/vitest ]; then node_modules/.bin/vitest run --reporter=default --reporter=junit --outputFile.junit="$COGWORKS_REPORT_DIR/junit.xml"` + filter + `; ` +
			`elif [ -d node_modules/jest-junit ]; then JEST_JUNIT_OUTPUT_DIR="$COGWORKS_REPORT_DIR" node_modules/.bin/jest --ci --reporters=default --reporters=jest-junit` + filter + `; ` +
			`else npm test --silent; fi`
	}
	return Domain{
		ArtifactTypes: types,
		Format:        `if [ -x node_modules/.bin/prettier ]; then node_modules/.bin/prettier --write --log-level warn .; fi`,
		Checks:        checks,
		Test:          test(""),
		TestOne:       test(" -t {filter}"),
		TestOutput:    "junit",
	}
}

// surefire runs Maven offline with its repository inside the workspace
// (filled by a set-up step such as `mvn -B dependency:go-offline`) and
// copies the Surefire reports out, removing stale ones first.
func surefire(extra string) string {
	return `rm -rf target/surefire-reports; mvn -q -o -B -Dmaven.repo.local=.m2/repository test` + extra +
		`; s=$?; cp target/surefire-reports/TEST-*.xml "$COGWORKS_REPORT_DIR/" 2>/dev/null; exit $s`
}

// Resolve applies the overrides of d to its preset.
func Resolve(d config.Domain) (Domain, error) {
	out := Domain{}
	if d.Preset != "" {
		p, ok := presets[d.Preset]
		if !ok {
			return Domain{}, fmt.Errorf("domain %q: unknown preset %q", d.Name, d.Preset)
		}
		out = p
	}
	out.Name = d.Name
	if len(d.ArtifactTypes) > 0 {
		out.ArtifactTypes = d.ArtifactTypes
	}
	if d.Setup != "" {
		out.Setup = d.Setup
	}
	out.SetupNetwork = d.SetupNetwork
	if d.Format != "" {
		out.Format = d.Format
	}
	if d.Lint != "" || d.TypeCheck != "" {
		out.Checks = nil
		for _, c := range []string{d.TypeCheck, d.Lint} {
			if c != "" {
				out.Checks = append(out.Checks, c)
			}
		}
	}
	if d.LintOutput != "" {
		out.LintOutput = d.LintOutput
	}
	if d.Test != "" {
		out.Test = d.Test
		out.TestOne = "" // the preset's way to run one test belongs to its own command
	}
	if d.TestOne != "" {
		out.TestOne = d.TestOne
	}
	if d.TestOutput != "" {
		out.TestOutput = d.TestOutput
	}
	if out.TestOutput == "" {
		out.TestOutput = "junit"
	}
	if out.LintOutput == "" {
		out.LintOutput = "auto"
	}
	if len(out.ArtifactTypes) == 0 {
		return Domain{}, fmt.Errorf("domain %q: no artifact types", d.Name)
	}
	return out, nil
}

// usesPython reports whether any command names {python}.
func (d Domain) usesPython() bool {
	for _, c := range append([]string{d.Setup, d.Format, d.Test, d.TestOne}, d.Checks...) {
		if strings.Contains(c, "{python}") {
			return true
		}
	}
	return false
}

// FromConfig resolves the [[domains]] table called name of a repository's
// configuration.
func FromConfig(cfg config.Config, name string) (Domain, error) {
	for _, d := range cfg.Domains {
		if d.Name == name {
			return Resolve(d)
		}
	}
	return Domain{}, fmt.Errorf("%s declares no domain %q", config.Path, name)
}
