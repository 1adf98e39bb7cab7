package goservice

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Tests run in two kinds of sandboxed steps (issue 25): one `go test -c`
// compiles every package's test binary, then each binary runs alone in a
// fresh sandbox whose only way out is its own standard output, a pipe read
// here by the host's test2json. No process that decides the verdict (the
// go command, test2json, this service) is inside the test's sandbox: its
// parent there is the non-dumpable sandbox init, so /proc/<ppid>/fd/1,
// pidfd_getfd and the like reach nothing but the same pipe.

// testBinMount is where the compiled test binaries appear inside the
// sandbox: writable for the compile step, read-only for the runs.
const testBinMount = "/cogworks/tests"

// testPackage is one package of a simulate request, as go list reports it.
type testPackage struct {
	ImportPath   string
	TestGoFiles  []string
	XTestGoFiles []string
	// dir is the package's directory, relative to the workspace.
	dir string
}

// hasTests reports whether the package has test files.
func (p testPackage) hasTests() bool { return len(p.TestGoFiles)+len(p.XTestGoFiles) > 0 }

// listPackages expands patterns in the sandbox (only needed when two
// packages' test binaries would have the same name).
func (r *runner) listPackages(ctx context.Context, ws *workspace, st step, patterns []string) ([]testPackage, result, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,TestGoFiles,XTestGoFiles"}, patterns...)
	res, err := r.goCmd(ctx, ws, st, args...)
	if err != nil || res.exitCode != 0 {
		return nil, res, err
	}
	var pkgs []testPackage
	dec := json.NewDecoder(bytes.NewReader(res.stdout))
	for {
		var p testPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, res, extserver.Errorf(domain.CodeToolFailed, "decode go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, res, nil
}

// majorVersion matches a module path's major version element.
var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// binaryName is the name `go test -c` gives a package's test binary: two
// packages with the same one cannot share an output directory.
func binaryName(importPath string) string {
	elem := path.Base(importPath)
	if majorVersion.MatchString(elem) && path.Dir(importPath) != "." {
		elem = path.Base(path.Dir(importPath))
	}
	return elem
}

// compileGroups splits the import paths of the packages with tests into
// groups whose test binaries have distinct names.
func compileGroups(pkgs []testPackage) [][]string {
	var groups [][]string
	var names []map[string]bool
	for _, p := range pkgs {
		if !p.hasTests() {
			continue
		}
		n := binaryName(p.ImportPath)
		i := 0
		for i < len(groups) && names[i][n] {
			i++
		}
		if i == len(groups) {
			groups, names = append(groups, nil), append(names, map[string]bool{})
		}
		groups[i], names[i][n] = append(groups[i], p.ImportPath), true
	}
	return groups
}

// compiled is the outcome of compiling the test binaries.
type compiled struct {
	// binaries maps an import path to its test binary on the host.
	binaries map[string]string
	// failed holds the compile step's JSON build events and standard
	// error when a compilation failed.
	failed *result
	// collision: two packages' binaries would have had the same name.
	collision bool
	// notes is what go test -c printed of packages without test files
	// ("?   \tpkg\t[no test files]"), as go test prints it.
	notes string
}

// testBuild is what compileTests builds: groups of packages, each into
// its own numbered directory.
type testBuild struct {
	// dir is the host directory the groups' directories are made in.
	dir string
	// first numbers the first group's directory: a retry after a name
	// collision starts past the first attempt's (0: from 0).
	first int
	// groups are package patterns or import paths, one go test -c each.
	groups [][]string
}

// compileTests builds each group's test binaries (go vet's test checks
// included, as go test runs them) into its own directory of b.dir, the
// groups numbered from b.first.
func (r *runner) compileTests(ctx context.Context, ws *workspace, st step, b testBuild) (compiled, error) {
	binDir, first, groups := b.dir, b.first, b.groups
	out := compiled{binaries: map[string]string{}}
	tc, err := r.setup(ctx)
	if err != nil {
		return out, err
	}
	st.binds = []sandbox.Bind{{Source: binDir, Target: testBinMount}}
	for i, g := range groups {
		i += first
		dst := fmt.Sprintf("%s/%d/", testBinMount, i)
		if !r.iso.Available() {
			dst = fmt.Sprintf("%s/%d/", binDir, i)
		}
		args := []string{"test", "-c", "-json", "-o", dst}
		if !goFlagSet(tc.settings["GOFLAGS"], "-ldflags") {
			// As go test links the binaries it runs itself: DWARF costs link
			// time, and nothing reads it.
			args = append(args, "-ldflags=-s -w")
		}
		res, err := r.goCmd(ctx, ws, st, append(args, g...)...)
		if err != nil {
			return out, err
		}
		if res.exitCode != 0 {
			out.failed = &res
			out.collision = bytes.Contains(res.stderr, []byte("cannot write test binary"))
			return out, nil
		}
		out.notes += buildNotes(res.stdout)
		if err := findBinaries(filepath.Join(binDir, fmt.Sprint(i)), out.binaries); err != nil {
			return out, err
		}
	}
	return out, nil
}

// buildNotes returns the package output events of a go test -c -json
// stream (the go command's own lines; no test code has run yet).
func buildNotes(stream []byte) string {
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(stream))
	for {
		var ev testEvent
		if dec.Decode(&ev) != nil {
			return b.String()
		}
		if ev.Action == "output" && ev.Test == "" {
			b.WriteString(ev.Output)
		}
	}
}

// goFlagSet reports whether a GOFLAGS value sets flag (as "-flag" or
// "-flag=value").
func goFlagSet(goflags, flag string) bool {
	for _, f := range strings.Fields(goflags) {
		name, _, _ := strings.Cut(f, "=")
		if name == flag || name == "-"+flag {
			return true
		}
	}
	return false
}

// testBinaryFlags carries the test flags of the host's GOFLAGS that go test
// would have passed to the binaries it ran (-count and -timeout are the
// request's own).
func testBinaryFlags(goflags string) []string {
	var out []string
	for _, f := range strings.Fields(goflags) {
		switch strings.TrimLeft(f, "-") {
		case "short", "short=true":
			out = append(out, "-test.short")
		case "failfast", "failfast=true":
			out = append(out, "-test.failfast")
		}
	}
	return out
}

// findBinaries maps each test binary of dir to its package, by the path
// its build information records ("<import path>.test"). Only regular files
// count: the directory was written from inside the sandbox.
func findBinaries(dir string, into map[string]string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "read test binaries: %v", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".test") {
			continue
		}
		file := filepath.Join(dir, e.Name())
		info, err := buildinfo.ReadFile(file)
		if err != nil {
			return extserver.Errorf(domain.CodeToolFailed, "read build info of %s: %v", e.Name(), err)
		}
		into[strings.TrimSuffix(info.Path, ".test")] = file
	}
	return nil
}

// testRun is one package's test binary run: its test2json event stream
// and exit status.
type testRun struct {
	pkg      testPackage
	events   []testEvent
	exitCode int
	// output is what the binary printed (capped), as the events carried it.
	output string
	// declared are the test names its test files declare (nil: unknown).
	declared map[string]bool
}

// runTests runs every binary of batch in its own sandbox, at most
// GOMAXPROCS at a time, in its package's directory, and returns the runs
// in import path order. It finds the host's test2json itself
// (batch.converter is ignored).
func (r *runner) runTests(ctx context.Context, ws *workspace, st step, batch testBatch) ([]testRun, error) {
	converter, err := r.converter.path(ctx, r)
	if err != nil {
		return nil, err
	}
	batch.converter = converter
	bins := batch.bins
	module := ws.modulePath()
	var todo []testPackage
	for _, ip := range slices.Sorted(maps.Keys(bins)) {
		todo = append(todo, testPackage{ImportPath: ip, dir: pkgDir(module, ip)})
	}
	// Read what each package declares before any test code runs: a running
	// binary may rewrite the workspace.
	declared := make([]map[string]bool, len(todo))
	for i, p := range todo {
		declared[i] = declaredTests(ws, p.dir)
	}
	runs := make([]testRun, len(todo))
	errs := make([]error, len(todo))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, p := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i], errs[i] = r.runTest(ctx, ws, st, batch, p)
		})
	}
	wg.Wait()
	for i := range runs {
		runs[i].declared = declared[i]
	}
	return runs, errors.Join(errs...)
}

// testBatch is what the runs of one request's test binaries share.
type testBatch struct {
	// converter is the host's test2json.
	converter string
	// binDir holds the compiled test binaries.
	binDir string
	// bins maps an import path to its test binary.
	bins map[string]string
	// args are the binaries' -test.* flags.
	args []string
}

// runTest runs p's test binary of b with its output piped to the host's
// test2json, and folds the events as they come (bounded memory whatever
// the test prints).
func (r *runner) runTest(ctx context.Context, ws *workspace, st step, b testBatch, p testPackage) (testRun, error) {
	converter, binDir, bin, args := b.converter, b.binDir, b.bins[p.ImportPath], b.args
	run := testRun{pkg: p}
	rd, wr, err := os.Pipe()
	if err != nil {
		return run, extserver.Errorf(domain.CodeInternalError, "pipe: %v", err)
	}
	defer rd.Close()
	conv := exec.CommandContext(ctx, converter, "-t", "-p", p.ImportPath)
	conv.Env = r.environ
	conv.Stdin = rd
	events, err := conv.StdoutPipe()
	if err != nil {
		_ = wr.Close()
		return run, extserver.Errorf(domain.CodeInternalError, "test2json: %v", err)
	}
	if err := conv.Start(); err != nil {
		_ = wr.Close()
		return run, extserver.Errorf(domain.CodeToolFailed, "start test2json: %v", err)
	}
	_ = rd.Close()
	var collect sync.WaitGroup
	var collected collector
	collect.Go(func() { collected = collectEvents(events, r.limits.OutputBytes) })

	st.offline, st.output, st.dir = true, wr, p.dir
	st.program = bin
	if r.iso.Available() {
		st.binds = []sandbox.Bind{{Source: binDir, Target: testBinMount, ReadOnly: true}}
		rel, err := filepath.Rel(binDir, bin)
		if err != nil {
			_ = wr.Close()
			return run, extserver.Errorf(domain.CodeInternalError, "test binary %s: %v", bin, err)
		}
		st.program = path.Join(testBinMount, filepath.ToSlash(rel))
	}
	res, runErr := r.goCmd(ctx, ws, st, args...)
	_ = wr.Close() // test2json sees EOF once the sandbox (all of it) is gone
	collect.Wait()
	if err := conv.Wait(); err != nil && runErr == nil {
		runErr = extserver.Errorf(domain.CodeToolFailed, "test2json for %s: %v", p.ImportPath, err)
	}
	run.events, run.output, run.exitCode = collected.events, collected.output, res.exitCode
	return run, runErr
}

// collector is what collectEvents gathered.
type collector struct {
	events []testEvent
	output string
}

// maxEventOutput bounds the output text one event may carry into memory.
const maxEventOutput = 64 << 10

// collectEvents reads test2json's stream to its end: every action event,
// and the output up to limit bytes (then a note of what was dropped).
func collectEvents(r io.Reader, limit int) collector {
	var c collector
	out := sandbox.NewOutput(limit)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br, 4<<20)
		if len(line) > 0 {
			var ev testEvent
			if json.Unmarshal(line, &ev) == nil && ev.Action != "" {
				_, _ = out.Write([]byte(ev.Output))
				if len(ev.Output) > maxEventOutput {
					ev.Output = ev.Output[:maxEventOutput]
				}
				if ev.Action != "output" || ev.Test != "" {
					c.events = append(c.events, ev)
				}
			}
		}
		if err != nil {
			break
		}
	}
	_, _ = io.Copy(io.Discard, r)
	c.output = string(out.Bytes())
	return c
}

// readLine reads one line, dropping what exceeds max bytes of it.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line) < max {
			line = append(line, chunk[:min(len(chunk), max-len(line))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// test2json finds the host's test2json once (Go 1.24 and later build it on
// demand into the build cache: `go tool -n` prints where) and again if the
// cache was trimmed since.
type test2json struct {
	mu   sync.Mutex
	file string
}

func (t *test2json) path(ctx context.Context, r *runner) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file != "" {
		if info, err := os.Stat(t.file); err == nil && info.Mode().IsRegular() {
			return t.file, nil
		}
	}
	tc, err := r.setup(ctx)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tc.goBin, "tool", "-n", "test2json")
	cmd.Env = append(append([]string(nil), r.environ...), "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", extserver.Errorf(domain.CodeToolNotFound, "find test2json (go tool -n test2json): %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	t.file = strings.TrimSpace(string(out))
	return t.file, nil
}
