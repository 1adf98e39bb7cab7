package cmdservice

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func TestParseSARIF(t *testing.T) {
	got, err := parseSARIF(readTestdata(t, "ruff.sarif"))
	require.NoError(t, err)
	assert.Equal(t, []finding{
		{file: "file:///cogworks/workspace/src/calc/core.py", line: 4, column: 5, level: "error", rule: "F821", message: "Undefined name `totl`"},
		// No level: SARIF's default is warning.
		{file: "src/calc/__init__.py", line: 1, level: "warning", rule: "F401", message: "`os` imported but unused"},
	}, got)
}

func TestParseSARIFRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not JSON", "F821 undefined", "parse SARIF"},
		{"other version", `{"version":"1.0.0","runs":[]}`, `"1.0.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSARIF([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseLines(t *testing.T) {
	out := "src/a.py:3:1: 'os' imported but unused\n" +
		"main.c:10:5: warning: unused variable 'x' [-Wunused-variable]\n" +
		"web/app.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.\n" +
		"src/lib.rs:2:5: error[E0425]: cannot find value `y` in this scope\n" +
		"[ERROR] /cogworks/workspace/src/main/java/A.java:[7,12] cannot find symbol\n" +
		"[INFO] BUILD FAILURE\n" +
		"Found 2 errors.\n" +
		"  in a prose line: nothing\n"
	assert.Equal(t, []finding{
		{file: "src/a.py", line: 3, column: 1, level: "error", message: "'os' imported but unused"},
		{file: "main.c", line: 10, column: 5, level: "warning", message: "unused variable 'x' [-Wunused-variable]"},
		{file: "web/app.ts", line: 4, column: 7, level: "error", rule: "TS2322", message: "Type 'string' is not assignable to type 'number'."},
		{file: "src/lib.rs", line: 2, column: 5, level: "error", rule: "E0425", message: "cannot find value `y` in this scope"},
		{file: "/cogworks/workspace/src/main/java/A.java", line: 7, column: 12, level: "error", message: "cannot find symbol"},
	}, parseLines([]byte(out)))
}

func TestParseJUnit(t *testing.T) {
	tests := []struct {
		file string
		want []junitCaseResult
	}{
		{"pytest-xunit1.xml", []junitCaseResult{
			{name: "test_add", pkg: "tests.test_calc", file: "tests/test_calc.py", line: 3, passed: true, elapsedMS: 1},
			{name: "test_sub", pkg: "tests.test_calc", file: "tests/test_calc.py", line: 7, passed: false, elapsedMS: 2},
			{name: "test_later", pkg: "tests.test_calc", file: "tests/test_calc.py", line: 11, passed: true, skipped: true},
		}},
		{"vitest.xml", []junitCaseResult{
			{name: "sum > adds", pkg: "src/sum.test.ts", passed: true, elapsedMS: 1},
			{name: "sum > negatives", pkg: "src/sum.test.ts", passed: false, elapsedMS: 2},
		}},
		{"surefire.xml", []junitCaseResult{
			{name: "adds", pkg: "com.example.CalcTest", passed: true, elapsedMS: 10},
			{name: "divides", pkg: "com.example.CalcTest", passed: false, elapsedMS: 10},
			{name: "ignored", pkg: "com.example.CalcTest", passed: true, skipped: true},
			// A flaky failure is a failure seen: failed.
			{name: "flaky", pkg: "com.example.CalcTest", passed: false, elapsedMS: 20},
		}},
		{"nextest.xml", []junitCaseResult{
			{name: "tests::adds", pkg: "calc", passed: true, elapsedMS: 4},
			{name: "tests::subs", pkg: "calc", passed: false, elapsedMS: 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := parseJUnit(readTestdata(t, tt.file))
			require.NoError(t, err)
			require.Len(t, got, len(tt.want))
			for i := range got {
				if !got[i].passed {
					assert.NotEmpty(t, got[i].output, "a failure carries its message")
				}
				got[i].output = ""
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseJUnitFailureOutput(t *testing.T) {
	got, err := parseJUnit(readTestdata(t, "pytest-xunit1.xml"))
	require.NoError(t, err)
	assert.Contains(t, got[1].output, "assert 1 == 2")
	assert.Contains(t, got[1].output, "tests/test_calc.py:9: AssertionError")
	got, err = parseJUnit(readTestdata(t, "nextest.xml"))
	require.NoError(t, err)
	assert.Contains(t, got[1].output, "panicked at src/lib.rs:12:9")
	assert.Contains(t, got[1].output, "running 1 test", "a failed test's system-out is kept")
}

func TestParseJUnitFailureWinsOverSkip(t *testing.T) {
	got, err := parseJUnit([]byte(`<testsuite name="s"><testcase name="t"><skipped/><failure message="boom"/></testcase></testsuite>`))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.False(t, got[0].passed)
	assert.False(t, got[0].skipped)
}

func TestParseJUnitRejects(t *testing.T) {
	for _, in := range []string{"", "not xml <", `<html><body/></html>`} {
		_, err := parseJUnit([]byte(in))
		assert.Error(t, err, "input %q", in)
	}
}

func TestParseCargoTest(t *testing.T) {
	got := parseCargoTest(readTestdata(t, "cargo-test.txt"))
	require.Len(t, got, 3)
	assert.Equal(t, junitCaseResult{name: "tests::adds", passed: true}, got[0])
	assert.Equal(t, junitCaseResult{name: "tests::later", passed: true, skipped: true}, got[1])
	assert.Equal(t, "tests::subs", got[2].name)
	assert.False(t, got[2].passed)
	assert.Contains(t, got[2].output, "panicked at src/lib.rs:12:9")
	assert.NotContains(t, got[2].output, "test result:")
}

// TestParseJUnitNodeTest reads node --test's JUnit reporter, which puts a
// test outside any describe() directly under <testsuites> (before this
// was read, every such test was missing and a run of them "ran no test").
func TestParseJUnitNodeTest(t *testing.T) {
	got, err := parseJUnit(readTestdata(t, "node-test.xml"))
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "adds", got[0].name)
	assert.True(t, got[0].passed)
	assert.Equal(t, "subtracts", got[1].name)
	assert.False(t, got[1].passed)
	assert.Contains(t, got[1].output, "2 !== 1")
	assert.Equal(t, "joins", got[2].name)
	assert.True(t, got[2].passed)
}
