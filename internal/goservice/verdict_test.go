package goservice

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// judgeCaptured judges a captured `go test -json` stream as simulate judges
// its runs: build failures through compileFailure, test events through
// verdict, one run per package (exit status 1 when it reported failure).
func judgeCaptured(ws *workspace, stream []byte) domain.SimulateResult {
	if bytes.Contains(stream, []byte(`"build-output"`)) {
		return compileFailure(ws, result{stdout: stream, exitCode: 1})
	}
	var runs []*testRun
	byPkg := map[string]*testRun{}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		run, ok := byPkg[ev.Package]
		if !ok {
			run = &testRun{pkg: testPackage{ImportPath: ev.Package}}
			byPkg[ev.Package], runs = run, append(runs, run)
		}
		run.events = append(run.events, ev)
		run.output += ev.Output
		if ev.Test == "" && ev.Action == "fail" {
			run.exitCode = 1
		}
	}
	var flat []testRun
	for _, r := range runs {
		flat = append(flat, *r)
	}
	return verdict(ws, ws.modulePath(), flat, "")
}

// ev builds a test2json event of package p.
func ev(action, test, output string) testEvent {
	return testEvent{Action: action, Package: "example.com/canmod/can", Test: test, Output: output}
}

func TestVerdictFromEvents(t *testing.T) {
	t.Parallel()
	pass := []testEvent{ev("run", "TestAdd", ""), ev("pass", "TestAdd", ""), ev("pass", "", "")}
	tests := []struct {
		name     string
		events   []testEvent
		exit     int
		filter   string
		passed   bool
		diagnose string // a diagnostic message must contain it ("" for none)
		skipped  bool
		declared map[string]bool // nil: not checked
	}{
		{"a passing test", pass, 0, "", true, "", false, nil},
		{"exit status 0 does not rescue a failing test (TestMain os.Exit(0))",
			[]testEvent{ev("run", "TestAdd", ""), ev("fail", "TestAdd", ""), ev("fail", "", "")}, 0, "", false, "TestAdd failed", false, nil},
		{"a later forged pass does not rescue a failed test",
			[]testEvent{ev("run", "TestAdd", ""), ev("fail", "TestAdd", ""), ev("pass", "TestAdd", ""), ev("pass", "", "")}, 0, "", false, "TestAdd failed", false, nil},
		{"no event at all (init exited 0)", nil, 0, "", false, "did not report its result", false, nil},
		{"final PASS with no test (test.run overridden)",
			[]testEvent{ev("output", "", "testing: warning: no tests to run\n"), ev("pass", "", "")}, 0, "", false, "no test ran in example.com/canmod/can", false, nil},
		{"a filter that matched nothing", []testEvent{ev("pass", "", "")}, 0, "TestNothing", false, `-run "TestNothing" matched no test`, false, nil},
		{"a test that started and never ended (crash)", []testEvent{ev("run", "TestAdd", "")}, 2, "", false, "TestAdd failed", false, nil},
		{"all passed but the binary exited non-zero", pass, 1, "", false, "exit status 1", false, nil},
		{"only skipped tests prove nothing",
			[]testEvent{ev("run", "TestAdd", ""), ev("skip", "TestAdd", ""), ev("pass", "", "")}, 0, "", false, "no test ran and passed", true, nil},
		{"a result for a test the package does not declare is forged",
			[]testEvent{ev("run", "TestAdd", ""), ev("pass", "TestAdd", ""), ev("run", "TestHeldOutScenario_BrakeReleases", ""), ev("pass", "TestHeldOutScenario_BrakeReleases", ""), ev("pass", "", "")},
			0, "", false, "TestHeldOutScenario_BrakeReleases is not declared", false, map[string]bool{"TestAdd": true}},
		{"subtests of a declared test are its own",
			[]testEvent{ev("run", "TestAdd", ""), ev("run", "TestAdd/zero", ""), ev("pass", "TestAdd/zero", ""), ev("pass", "TestAdd", ""), ev("pass", "", "")},
			0, "", true, "", false, map[string]bool{"TestAdd": true}},
		{"a package of benchmarks alone fails nothing itself, and proves nothing",
			[]testEvent{ev("output", "", "testing: warning: no tests to run\n"), ev("pass", "", "")}, 0, "", false, "no test ran and passed", false, map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := toolWorkspace(t, map[string]string{"can/can.go": canGo})
			run := testRun{pkg: testPackage{ImportPath: "example.com/canmod/can"}, events: tt.events, exitCode: tt.exit, declared: tt.declared}
			res := verdict(ws, ws.modulePath(), []testRun{run}, tt.filter)
			assert.Equal(t, tt.passed, res.Passed)
			var msgs []string
			for _, d := range res.Diagnostics {
				msgs = append(msgs, d.Message)
			}
			if tt.diagnose == "" {
				assert.Empty(t, msgs)
			} else {
				assert.Contains(t, strings.Join(msgs, "\n"), tt.diagnose)
			}
			if tt.passed {
				assert.Contains(t, res.Output, "ok  \texample.com/canmod/can\t", "go test's summary line, written from the verdict")
			}
			if strings.Contains(tt.diagnose, "TestAdd failed") {
				assert.Contains(t, res.Output, "FAIL\texample.com/canmod/can\t")
			}
			if tt.skipped {
				require.Len(t, res.Tests, 1)
				assert.True(t, res.Tests[0].Skipped)
			}
		})
	}
}

func TestCompileGroupsSeparateSameNamedBinaries(t *testing.T) {
	t.Parallel()
	withTests := func(ip string) testPackage { return testPackage{ImportPath: ip, TestGoFiles: []string{"x_test.go"}} }
	groups := compileGroups([]testPackage{
		withTests("m/a/util"), withTests("m/b/util"), {ImportPath: "m/notests"}, withTests("m/c"), withTests("m/c/v2"), withTests("m/d/util"),
	})
	assert.Equal(t, [][]string{{"m/a/util", "m/c"}, {"m/b/util", "m/c/v2"}, {"m/d/util"}}, groups)
}

func TestCollectEventsBoundsOutputKeepsVerdict(t *testing.T) {
	t.Parallel()
	var stream bytes.Buffer
	enc := json.NewEncoder(&stream)
	require.NoError(t, enc.Encode(ev("run", "TestFlood", "")))
	for range 64 {
		require.NoError(t, enc.Encode(ev("output", "TestFlood", strings.Repeat("x", 4096)+"\n")))
	}
	require.NoError(t, enc.Encode(ev("fail", "TestFlood", "")))
	stream.WriteString("not json\n")
	c := collectEvents(&stream, 64<<10)
	assert.Contains(t, c.output, "output truncated")
	assert.Less(t, len(c.output), 70<<10)
	require.NotEmpty(t, c.events)
	assert.Equal(t, "fail", c.events[len(c.events)-1].Action, "the verdict's events survive the output cap")
}

func TestGoFlagsForTestBinaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goflags string
		ldflags bool
		flags   []string
	}{
		{"", false, nil},
		{"-mod=mod -short", false, []string{"-test.short"}},
		{"--ldflags=-X=a.b=c -failfast=true -short=false", true, []string{"-test.failfast"}},
		{"-ldflags=-w", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.goflags, func(t *testing.T) {
			assert.Equal(t, tt.ldflags, goFlagSet(tt.goflags, "-ldflags"))
			assert.Equal(t, tt.flags, testBinaryFlags(tt.goflags))
		})
	}
}

func TestDeclaredTests(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{
		"a/a_test.go":  "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\nfunc ExampleA() {}\nfunc FuzzA(f *testing.F) {}\nfunc helper() {}\n",
		"a/x_test.go":  "package a_test\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n\ntype s struct{}\n\nfunc (s) TestMethod() {}\n",
		"a/a.go":       "package a\n\nfunc TestLooksLikeATestButIsNot() {}\n",
		"a/nottest.md": "func TestNo(t *testing.T) {}\n",
	})
	assert.Equal(t, map[string]bool{"TestA": true, "ExampleA": true, "FuzzA": true, "TestX": true}, declaredTests(ws, "a"))
	assert.Nil(t, declaredTests(ws, "missing"))
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(ws.dir, "a", "link_test.go")))
	assert.Nil(t, declaredTests(ws, "a"), "a link is not followed: the check is off rather than guessing")
	require.NoError(t, os.Remove(filepath.Join(ws.dir, "a", "link_test.go")))
	require.NoError(t, os.WriteFile(filepath.Join(ws.dir, "a", "bad_test.go"), []byte("package a\nfunc ("), 0o644))
	assert.Nil(t, declaredTests(ws, "a"), "an unparsable file disables the check rather than guess")
}

// TestVerdictBenchmarkOnlyPackageBesideTestedOne: go test runs no test in
// a package whose test files hold only benchmarks and calls it ok; so does
// the verdict, when another package's tests ran and passed.
func TestVerdictBenchmarkOnlyPackageBesideTestedOne(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{"can/can.go": canGo})
	runs := []testRun{
		{pkg: testPackage{ImportPath: "example.com/canmod/can"}, exitCode: 0, declared: map[string]bool{"TestAdd": true},
			events: []testEvent{ev("run", "TestAdd", ""), ev("pass", "TestAdd", ""), ev("pass", "", "")}},
		{pkg: testPackage{ImportPath: "example.com/canmod/bench"}, exitCode: 0, declared: map[string]bool{},
			events: []testEvent{ev("output", "", "testing: warning: no tests to run\n"), ev("pass", "", "")}},
	}
	res := verdict(ws, ws.modulePath(), runs, "")
	assert.True(t, res.Passed)
	assert.Empty(t, res.Diagnostics)
}
