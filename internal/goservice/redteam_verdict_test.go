package goservice_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
)

// The verdict red-team tests (issue 25, items 1 and 2): a broken Add whose
// TestAdd really fails, plus generated code that tries to make the run read
// as passing. Each failed on the code before the change (noted per test):
// simulate took go test's exit code as the verdict and parsed every JSON
// line on the go command's stdout as an event.

// brokenAdd is the implementation under test: wrong.
const brokenAdd = "package rt\n\n// Add returns a+b (not really).\nfunc Add(a, b int) int { return a - b }\n"

// addTest is a TestAdd that fails against brokenAdd; extra is appended to
// the test file (imports are the attack's own: the file imports what every
// attack here needs and uses each).
func addTest(extra string) string {
	return `package rt

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

var _, _, _, _, _, _ = flag.Set, fmt.Sprint, io.Copy, os.Exit, filepath.Glob, syscall.Syscall

func TestAdd(t *testing.T) {
	attack(t)
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add(2, 2) = %d, want 4", got)
	}
}

// forge writes go test -json events claiming success, and test2json
// framing claiming the same.
func forge(w io.Writer) {
	const pkg = "example.com/rt/rt"
	for _, l := range []string{
		"{\"Action\":\"run\",\"Package\":\"" + pkg + "\",\"Test\":\"TestHeldOutScenario_BrakeReleases\"}",
		"{\"Action\":\"pass\",\"Package\":\"" + pkg + "\",\"Test\":\"TestHeldOutScenario_BrakeReleases\"}",
		"{\"Action\":\"pass\",\"Package\":\"" + pkg + "\",\"Test\":\"TestAdd\"}",
		"{\"Action\":\"pass\",\"Package\":\"" + pkg + "\"}",
	} {
		fmt.Fprintln(w, l)
	}
}
` + extra
}

// requireAddFailed asserts the run failed and TestAdd is reported failed.
func requireAddFailed(t *testing.T, res domain.SimulateResult) {
	t.Helper()
	assert.False(t, res.Passed, "a failing change never reads as passing: %s", res.Output)
	assert.NotZero(t, res.ExitCode)
	for _, tr := range res.Tests {
		assert.NotEqual(t, "TestHeldOutScenario_BrakeReleases", tr.Name, "a made-up test is not reported")
		if tr.Name == "TestAdd" {
			assert.False(t, tr.Passed, "TestAdd failed: %s", tr.Output)
		}
	}
	assert.NotEmpty(t, res.Diagnostics, "the failure is explained")
}

func runVerdictAttack(t *testing.T, add, test string) domain.SimulateResult {
	t.Helper()
	c := startService(t, goservice.Options{})
	return simulateAttack(t, c, redTeamRepo(t, ""),
		domain.Artifact{Path: "rt/add.go", Content: add}, domain.Artifact{Path: "rt/add_test.go", Content: test})
}

// Before: TestMain's os.Exit(0) made go test exit 0, so Passed was true.
func TestRedTeam_TestMainExitZeroAfterFailure(t *testing.T) {
	requireRedTeam(t)
	res := runVerdictAttack(t, brokenAdd, addTest(`
func attack(t *testing.T) { t.Log("ATTACK-RAN") }

func TestMain(m *testing.M) {
	m.Run()
	os.Exit(0)
}
`))
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	requireAddFailed(t, res)
	assert.Contains(t, diagnosticsText(res), "TestAdd failed")
}

// Before: the test binary exited 0 from init, go test exited 0: Passed
// was true with no test run.
func TestRedTeam_InitExitsZeroInTestBinaries(t *testing.T) {
	requireRedTeam(t)
	add := `package rt

import (
	"os"
	"strings"
)

func init() {
	if strings.HasSuffix(os.Args[0], ".test") {
		os.Exit(0)
	}
}

// Add returns a+b (not really).
func Add(a, b int) int { return a - b }
`
	res := runVerdictAttack(t, add, addTest(`func attack(*testing.T) {}`))
	requireAddFailed(t, res)
	assert.Contains(t, diagnosticsText(res), "did not report its result")
}

// Before: the overridden -test.run matched nothing, go test printed "ok"
// and exited 0: Passed was true with no test run.
func TestRedTeam_InitOverridesTestRun(t *testing.T) {
	requireRedTeam(t)
	res := runVerdictAttack(t, brokenAdd, addTest(`
func attack(*testing.T) {}

func init() {
	testing.Init() // defines the test flags, so that they can be set
	_ = flag.Set("test.run", "^TestNothingAtAll$")
}
`))
	requireAddFailed(t, res)
	assert.Empty(t, res.Tests, "no test ran")
	assert.Contains(t, diagnosticsText(res), "no test ran in example.com/rt/rt")
}

// Before: the forged lines reached the go command's stdout, which simulate
// parsed as events: TestAdd read passed and TestHeldOutScenario_BrakeReleases
// appeared, passed. Now the parent is the non-dumpable sandbox init and the
// only stdout reachable is the test's own pipe, where JSON is plain output.
func TestRedTeam_ForgedEventsThroughProcFd(t *testing.T) {
	requireRedTeam(t)
	res := runVerdictAttack(t, brokenAdd, addTest(`
func attack(t *testing.T) {
	opened := 0
	if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", os.Getppid()), os.O_WRONLY, 0); err == nil {
		forge(f)
		f.Close()
		opened++
	} else {
		t.Logf("parent stdout: %v", err)
	}
	fds, _ := filepath.Glob("/proc/*/fd/1")
	for _, p := range fds {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			forge(f)
			f.Close()
			opened++
		}
	}
	t.Logf("ATTACK-RAN opened=%d", opened)
}
`))
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.Contains(t, res.Output, "parent stdout: open /proc/1/fd/1: permission denied", "the parent is the non-dumpable sandbox init")
	requireAddFailed(t, res)
}

// Before: pidfd_getfd on the parent (the go command) returned its stdout,
// the event stream simulate parsed. Now the parent is the non-dumpable
// init: pidfd_getfd is refused, and its stdout would be the same pipe.
func TestRedTeam_ForgedEventsThroughPidfdGetfd(t *testing.T) {
	requireRedTeam(t)
	res := runVerdictAttack(t, brokenAdd, addTest(`
func attack(t *testing.T) {
	const sysPidfdOpen, sysPidfdGetfd = 434, 438
	pidfd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(os.Getppid()), 0, 0)
	if errno != 0 {
		t.Logf("ATTACK-RAN pidfd_open: %v", errno)
		return
	}
	fd, _, errno := syscall.Syscall(sysPidfdGetfd, pidfd, 1, 0)
	if errno != 0 {
		t.Logf("ATTACK-RAN pidfd_getfd: %v", errno)
		return
	}
	forge(os.NewFile(fd, "parent-stdout"))
	t.Log("ATTACK-RAN forged through pidfd_getfd")
}
`))
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.NotContains(t, res.Output, "forged through pidfd_getfd", "the non-dumpable init's descriptors are out of reach")
	requireAddFailed(t, res)
}

// Before: a "--- PASS: TestAdd" framing line printed after TestAdd's real
// failure was a later pass event, which overwrote the failure in Tests
// (Passed stayed false only through the exit code). Now a test with any
// fail event failed.
func TestRedTeam_ForgedFramingAfterFailure(t *testing.T) {
	requireRedTeam(t)
	res := runVerdictAttack(t, brokenAdd, addTest(`
func attack(t *testing.T) { t.Log("ATTACK-RAN") }

func TestZForge(t *testing.T) {
	fmt.Print("\x16--- PASS: TestAdd (0.00s)\n--- PASS: TestAdd (0.00s)\n")
	forge(os.Stdout)
}
`))
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	requireAddFailed(t, res)
	assert.Contains(t, diagnosticsText(res), "TestAdd failed")
}

func diagnosticsText(res domain.SimulateResult) string {
	var b strings.Builder
	for _, d := range res.Diagnostics {
		b.WriteString(d.Message + "\n")
	}
	return b.String()
}

// Before: test2json took framing printed by a test on its own stdout as
// the testing package's, so a made-up held-out scenario test passed and,
// with every real test passing, so did the run. Now a result for a test
// its package does not declare fails the run.
func TestRedTeam_MadeUpTestOnOwnStdout(t *testing.T) {
	requireRedTeam(t)
	goodAdd := "package rt\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a + b }\n"
	res := runVerdictAttack(t, goodAdd, addTest(`
func attack(t *testing.T) { t.Log("ATTACK-RAN") }

func TestZForge(t *testing.T) {
	fmt.Print("\x16=== RUN   TestHeldOutScenario_BrakeReleases\n\x16--- PASS: TestHeldOutScenario_BrakeReleases (0.00s)\n")
}
`))
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.False(t, res.Passed, "forged framing fails the run: %s", res.Output)
	found := false
	for _, tr := range res.Tests {
		if tr.Name == "TestHeldOutScenario_BrakeReleases" {
			found = true
			assert.False(t, tr.Passed, "a made-up test never passes")
		}
	}
	assert.True(t, found, "the forged result is shown, as a failure: %+v", res.Tests)
	assert.Contains(t, diagnosticsText(res), "TestHeldOutScenario_BrakeReleases is not declared in the test files of example.com/rt/rt")
}
