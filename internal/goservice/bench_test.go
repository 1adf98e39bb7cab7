package goservice_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// maxSizeRatio bounds how much slower a validate request may be on a
// 10,000-file module than on a 10-file one (issue 8): the service must not
// copy the repository per request.
const maxSizeRatio = 2.0

// writeModule generates a module of exactly files files in dir: go.mod, nine
// Go files in three packages, and the rest as non-Go files (documentation
// and fixtures) spread over directories of 100, as in a real repository
// where most files are not Go code.
func writeModule(tb testing.TB, dir string, files int) {
	tb.Helper()
	write := func(rel, content string) {
		tb.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write("go.mod", "module example.com/big\n\ngo 1.22\n")
	for _, pkg := range []string{"core", "util", "wire"} {
		for i := range 3 {
			write(fmt.Sprintf("%s/f%d.go", pkg, i), fmt.Sprintf("package %s\n\n// F%d returns its input doubled.\nfunc F%d(x int) int { return 2 * x }\n", pkg, i, i))
		}
	}
	for i := range files - 10 {
		write(fmt.Sprintf("docs/d%03d/note%05d.md", i/100, i), fmt.Sprintf("# Note %d\n\nReference material that is not Go code.\n", i))
	}
}

// BenchmarkValidateModuleSize times the same validate request (one changed
// file) on a 10-file and a 10,000-file module, reports both and their ratio,
// and fails when the ratio exceeds maxSizeRatio.
func BenchmarkValidateModuleSize(b *testing.B) {
	small, large := b.TempDir(), b.TempDir()
	writeModule(b, small, 10)
	writeModule(b, large, 10000)
	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: goservicetest.Start(b, goservice.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	ctx := context.Background()
	change := []domain.Artifact{{Path: "core/f0.go", Content: "package core\n\n// F0 returns its input tripled.\nfunc F0(x int) int { return 3 * x }\n"}}
	validate := func(repo string) time.Duration {
		start := time.Now()
		res, err := c.Validate(ctx, domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: change})
		if err != nil {
			b.Fatalf("validate %s: %v", repo, err)
		}
		if domain.Blocking(res.Diagnostics) {
			b.Fatalf("validate %s: %+v", repo, res.Diagnostics)
		}
		return time.Since(start)
	}
	validate(small) // fill the build cache for both
	validate(large)
	var tSmall, tLarge time.Duration
	b.ResetTimer()
	for b.Loop() {
		tSmall += validate(small)
		tLarge += validate(large)
	}
	n := float64(b.N)
	smallMS, largeMS := float64(tSmall.Milliseconds())/n, float64(tLarge.Milliseconds())/n
	ratio := float64(tLarge) / float64(tSmall)
	b.ReportMetric(smallMS, "ms-10-files")
	b.ReportMetric(largeMS, "ms-10000-files")
	b.ReportMetric(ratio, "ratio")
	if ratio > maxSizeRatio {
		b.Fatalf("validate on 10,000 files took %.0f ms, %.2f× the %.0f ms on 10 files (limit %.1f×)", largeMS, ratio, smallMS, maxSizeRatio)
	}
}

// BenchmarkSimulateSandboxOverhead times one simulate (go test of a small
// package, build cache warm) with the sandbox and without it (the unsafe
// opt-out), to report what isolation costs per go test invocation.
func BenchmarkSimulateSandboxOverhead(b *testing.B) {
	repo := b.TempDir()
	writeModule(b, repo, 10)
	req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{{Path: "core/f_test.go",
		Content: "package core\n\nimport \"testing\"\n\nfunc TestF0(t *testing.T) {\n\tif F0(2) != 4 {\n\t\tt.Fatal(F0(2))\n\t}\n}\n"}}}
	params := domain.SimulateParams{Packages: []string{"./core"}}
	for _, mode := range []struct {
		name string
		opts goservice.Options
	}{
		{"sandboxed", goservice.Options{}},
		{"unsandboxed", goservice.Options{ServiceOptions: sandbox.ServiceOptions{Isolation: &sandbox.Isolation{Mode: sandbox.None, Reason: "benchmark baseline"}, UnsafeNoSandbox: true}}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: goservicetest.Start(b, mode.opts)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(c.Close)
			ctx := context.Background()
			run := func() {
				res, err := c.Simulate(ctx, req, params)
				if err != nil || !res.Passed {
					b.Fatalf("simulate: %v %+v", err, res)
				}
			}
			run() // warm the build cache
			for b.Loop() {
				run()
			}
		})
	}
}
