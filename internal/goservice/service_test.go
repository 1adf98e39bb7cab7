package goservice_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// sampleModule copies testdata/canmod to a temporary directory.
func sampleModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/canmod")))
	return dir
}

func newClient(t *testing.T, sock string) *domain.Client {
	t.Helper()
	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func findDiag(diags []domain.Diagnostic, cat domain.Category) (domain.Diagnostic, bool) {
	for _, d := range diags {
		if d.Category == cat {
			return d, true
		}
	}
	return domain.Diagnostic{}, false
}

// TestReferenceService exercises every method over a real unix socket on
// one shared sample module.
func TestReferenceService(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go toolchain")
	}
	ctx := context.Background()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the service's workspaces land here
	repo := sampleModule(t)
	c := newClient(t, goservicetest.Start(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 2 * time.Minute}}))
	base := domain.Request{Repository: domain.Repository{Path: repo}}
	with := func(arts ...domain.Artifact) domain.Request {
		r := base
		r.Artifacts = arts
		return r
	}

	t.Run("handshake", func(t *testing.T) {
		hs, err := c.Handshake(ctx)
		require.NoError(t, err)
		assert.Equal(t, "software", hs.Domain)
		assert.ElementsMatch(t, domain.Methods(), hs.Capabilities)
		assert.True(t, hs.Covers("can/can.go"))
		assert.True(t, hs.Covers("go.mod"))
		assert.False(t, hs.Covers("README.md"))
	})

	t.Run("validate clean module", func(t *testing.T) {
		e2e.RequireToolchain(t)
		res, err := c.Validate(ctx, base)
		require.NoError(t, err)
		assert.False(t, domain.Blocking(res.Diagnostics), "%+v", res.Diagnostics)
	})

	t.Run("validate type error", func(t *testing.T) {
		e2e.RequireToolchain(t)
		res, err := c.Validate(ctx, with(domain.Artifact{Path: "can/bad.go", Content: "package can\n\nfunc Bad() int {\n\treturn \"x\"\n}\n"}))
		require.NoError(t, err)
		d, ok := findDiag(res.Diagnostics, domain.CategoryTypeError)
		require.True(t, ok, "%+v", res.Diagnostics)
		assert.Equal(t, "can/bad.go", d.Artifact)
		assert.Equal(t, domain.Location{File: "can/bad.go", Line: 4, Column: 9}, d.Location)
		assert.Equal(t, domain.SeverityBlocking, d.Severity)
		assert.Equal(t, domain.ExplainsCompileError, d.Explains)
	})

	t.Run("validate syntax error", func(t *testing.T) {
		res, err := c.Validate(ctx, with(domain.Artifact{Path: "can/broken.go", Content: "package can\n\nfunc Broken( {\n"}))
		require.NoError(t, err)
		d, ok := findDiag(res.Diagnostics, domain.CategorySyntaxError)
		require.True(t, ok, "%+v", res.Diagnostics)
		assert.Equal(t, "can/broken.go", d.Location.File)
		assert.Equal(t, 3, d.Location.Line)
	})

	t.Run("validate vet finding", func(t *testing.T) {
		e2e.RequireToolchain(t)
		// The second run replays go vet's cached finding, printed with the
		// first workspace's path.
		for run := 1; run <= 2; run++ {
			res, err := c.Validate(ctx, with(domain.Artifact{Path: "can/fmt.go", Content: "package can\n\nimport \"fmt\"\n\nfunc Say() string {\n\treturn fmt.Sprintf(\"%d\", \"x\")\n}\n"}))
			require.NoError(t, err)
			d, ok := findDiag(res.Diagnostics, domain.CategoryStyleViolation)
			require.True(t, ok, "run %d: %+v", run, res.Diagnostics)
			assert.Equal(t, domain.Location{File: "can/fmt.go", Line: 6, Column: 22}, d.Location, "run %d", run)
		}
	})

	t.Run("simulate passing and failing tests", func(t *testing.T) {
		e2e.RequireToolchain(t)
		failing := domain.Artifact{Path: "can/fail_test.go", Content: "package can\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) {\n\tt.Errorf(\"bus load too high: %d\", 7)\n}\n"}
		res, err := c.Simulate(ctx, with(failing), domain.SimulateParams{Timeout: "60s"})
		require.NoError(t, err)
		assert.False(t, res.Passed)
		assert.NotZero(t, res.ExitCode)
		byName := map[string]domain.TestResult{}
		for _, tr := range res.Tests {
			byName[tr.Name] = tr
		}
		require.Contains(t, byName, "TestEncode")
		require.Contains(t, byName, "TestFails")
		assert.True(t, byName["TestEncode"].Passed)
		assert.False(t, byName["TestFails"].Passed)
		assert.Equal(t, "example.com/canmod/can", byName["TestFails"].Package)
		assert.Contains(t, byName["TestFails"].Output, "bus load too high: 7")
		d, ok := findDiag(res.Diagnostics, domain.CategoryTestFailure)
		require.True(t, ok, "%+v", res.Diagnostics)
		assert.Contains(t, d.Message, "bus load too high: 7")
		assert.Equal(t, domain.Location{File: "can/fail_test.go", Line: 6}, d.Location)
		assert.Empty(t, d.Explains, "a message without got/want does not explain itself")

		filtered, err := c.Simulate(ctx, with(failing), domain.SimulateParams{Filter: "^TestEncode$", Packages: []string{"./can"}})
		require.NoError(t, err)
		assert.True(t, filtered.Passed)
		require.Len(t, filtered.Tests, 1)
		assert.Equal(t, "TestEncode", filtered.Tests[0].Name)
	})

	t.Run("simulate bounds a hanging test", func(t *testing.T) {
		e2e.RequireToolchain(t)
		hang := domain.Artifact{Path: "can/hang_test.go", Content: "package can\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHangs(t *testing.T) {\n\ttime.Sleep(time.Hour)\n}\n"}
		start := time.Now()
		res, err := c.Simulate(ctx, with(hang), domain.SimulateParams{Timeout: "1s", Packages: []string{"./can"}, Filter: "TestHangs"})
		require.NoError(t, err)
		assert.Less(t, time.Since(start), time.Minute)
		assert.False(t, res.Passed)
		assert.Contains(t, res.Output, "test timed out")
		d, ok := findDiag(res.Diagnostics, domain.CategoryTestFailure)
		assert.True(t, ok, "%+v", res.Diagnostics)
		assert.Equal(t, domain.ExplainsTimeout, d.Explains)
	})

	t.Run("simulate runs every package's binary, same-named ones too", func(t *testing.T) {
		e2e.RequireToolchain(t)
		pass := func(pkg string) string {
			return "package " + pkg + "\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n"
		}
		res, err := c.Simulate(ctx, with(
			domain.Artifact{Path: "x/util/u_test.go", Content: pass("util")},
			domain.Artifact{Path: "y/util/u_test.go", Content: pass("util")},
			domain.Artifact{Path: "z/z_test.go", Content: pass("z")},
		), domain.SimulateParams{Timeout: "60s"})
		require.NoError(t, err)
		assert.True(t, res.Passed, "%s %+v", res.Output, res.Diagnostics)
		var pkgs []string
		for _, tr := range res.Tests {
			if tr.Name == "TestOK" {
				assert.True(t, tr.Passed)
				pkgs = append(pkgs, tr.Package)
			}
		}
		assert.ElementsMatch(t, []string{"example.com/canmod/x/util", "example.com/canmod/y/util", "example.com/canmod/z"}, pkgs)
	})

	t.Run("extract_interfaces", func(t *testing.T) {
		res, err := c.ExtractInterfaces(ctx, base)
		require.NoError(t, err)
		values := map[string]any{}
		for _, v := range res.Values {
			assert.Equal(t, "SWD-IF-CAN-01", v.Interface)
			assert.Equal(t, "can/can.go", v.Artifact)
			values[v.Parameter] = v.Value
		}
		assert.Equal(t, map[string]any{
			"baud_rate":                         float64(500000),
			"max_bus_load":                      0.25,
			"messages.BrakePressureFL.can_id":   float64(0x120),
			"messages.BrakePressureFL.cycle_ms": float64(10),
			"connector":                         "JST-PH-4",
			"termination_required":              true,
		}, values)
		names := map[string]string{}
		for _, d := range res.Declarations {
			names[d.Name] = d.Kind
		}
		assert.Equal(t, "type", names["Frame"])
		assert.Equal(t, "func", names["Encode"])
		assert.Equal(t, "method", names["Frame.Len"])
		assert.Equal(t, "const", names["BaudRate"])
		assert.NotContains(t, names, "baseCycleMS")
	})

	t.Run("normalise", func(t *testing.T) {
		res, err := c.Normalise(ctx, with(domain.Artifact{Path: "can/x.go", Content: "package can\nfunc  X( ) int {return 1}\n"}))
		require.NoError(t, err)
		assert.True(t, res.Changed)
		require.Len(t, res.Artifacts, 1)
		assert.Equal(t, "package can\n\nfunc X() int { return 1 }\n", res.Artifacts[0].Content)
	})

	t.Run("dependency_graph", func(t *testing.T) {
		res, err := c.DependencyGraph(ctx, base)
		require.NoError(t, err)
		require.Len(t, res.Packages, 2)
		assert.Equal(t, domain.PackageNode{Path: "example.com/canmod", Dir: ".", Imports: []string{"example.com/canmod/can", "fmt"}}, res.Packages[0])
		assert.Equal(t, "can", res.Packages[1].Dir)
	})

	t.Run("validate_deps reports a missing module", func(t *testing.T) {
		e2e.RequireToolchain(t)
		res, err := c.ValidateDeps(ctx, base)
		require.NoError(t, err)
		assert.Empty(t, res.Diagnostics)
		res, err = c.ValidateDeps(ctx, with(domain.Artifact{Path: "can/dep.go", Content: "package can\n\nimport _ \"example.org/not/there\"\n"}))
		require.NoError(t, err)
		d, ok := findDiag(res.Diagnostics, domain.CategoryDependencyError)
		require.True(t, ok, "%+v", res.Diagnostics)
		assert.Contains(t, d.Message, "example.org/not/there")
		assert.Equal(t, "can/dep.go", d.Location.File)

		res, err = c.ValidateDeps(ctx, with(domain.Artifact{Path: "go.mod", Content: "module example.com/canmod\n\ngo 1.24\n\nrequire example.com/dep\n"}))
		require.NoError(t, err)
		require.Len(t, res.Diagnostics, 1, "%+v", res.Diagnostics)
		assert.Equal(t, domain.Location{File: "go.mod", Line: 5, Column: 1}, res.Diagnostics[0].Location)
		assert.Contains(t, res.Diagnostics[0].Message, "go.mod does not parse")
	})

	t.Run("escaping artifact path is invalid_request", func(t *testing.T) {
		for _, p := range []string{"../evil.go", "/etc/evil.go", "a/../../evil.go"} {
			_, err := c.Validate(ctx, with(domain.Artifact{Path: p, Content: "package x"}))
			var de *domain.Error
			require.True(t, errors.As(err, &de), "%s: %v", p, err)
			assert.Equal(t, domain.CodeInvalidRequest, de.Code, p)
			assert.False(t, de.Transient())
		}
	})

	t.Run("missing repository is artifact_not_found", func(t *testing.T) {
		_, err := c.Validate(ctx, domain.Request{Repository: domain.Repository{Path: repo + "/nope"}})
		var de *domain.Error
		require.True(t, errors.As(err, &de), "%v", err)
		assert.Equal(t, domain.CodeArtifactNotFound, de.Code)
	})

	t.Run("unknown method is unsupported_method", func(t *testing.T) {
		resp, err := c.PostRaw(ctx, "compile_firmware", []byte(`{"api_version":"1.0.0","request_id":"r1","method":"compile_firmware"}`))
		require.NoError(t, err)
		require.NotNil(t, resp.Error)
		assert.Equal(t, domain.CodeUnsupportedMethod, resp.Error.Code)
		assert.False(t, resp.Error.Recoverable)
	})

	t.Run("temporary workspaces are removed", func(t *testing.T) {
		entries, err := os.ReadDir(tmp)
		require.NoError(t, err)
		for _, e := range entries {
			assert.False(t, strings.HasPrefix(e.Name(), "cogworks-go-"), "workspace %s left behind", e.Name())
		}
	})
}
