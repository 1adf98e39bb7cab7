//go:build e2e

package stages_test

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/xval"
)

// routeRecorder is one routed service that records the paths of the
// source artifacts each request brought it.
type routeRecorder struct {
	*domain.Client

	mu       sync.Mutex
	got      map[string][]string // method → artifact paths
	simPaths []string            // simulate's params.paths
}

func (r *routeRecorder) record(method string, req domain.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range req.Artifacts {
		r.got[method] = append(r.got[method], a.Path)
	}
}

func (r *routeRecorder) Validate(ctx context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	r.record("validate", req)
	return r.Client.Validate(ctx, req)
}

func (r *routeRecorder) Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	r.record("simulate", req)
	r.mu.Lock()
	r.simPaths = append(r.simPaths, p.Paths...)
	r.mu.Unlock()
	return r.Client.Simulate(ctx, req, p)
}

// sources returns the recorded paths of method with one of exts.
func (r *routeRecorder) sources(method string, exts ...string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.got[method] {
		if slices.Contains(exts, path.Ext(p)) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func routed(t *testing.T, name string, endpoint string) (domain.Routed, *routeRecorder) {
	t.Helper()
	c, err := domain.NewClient(domain.ServiceConfig{Name: name, Transport: domain.TransportUnix, Endpoint: endpoint})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	hs, err := c.Handshake(context.Background())
	require.NoError(t, err)
	rec := &routeRecorder{Client: c, got: map[string][]string{}}
	return domain.Routed{Name: name, Handshake: hs, Client: rec}, rec
}

const (
	monoFormatGo = `package price

import "fmt"

// String formats c with two decimals, as "12.05".
func (c Cents) String() string {
	return fmt.Sprintf("%d.%02d", c/100, c%100)
}
`
	monoFormatGoTest = `package price

import "testing"

func TestCentsString(t *testing.T) {
	for c, want := range map[Cents]string{0: "0.00", 5: "0.05", 1205: "12.05"} {
		if got := c.String(); got != want {
			t.Errorf("Cents(%d).String() = %q, want %q", int64(c), got, want)
		}
	}
}
`
	monoFormatTS = `import type { Cents } from "./price.js";

/** Formats an amount with two decimals, as "12.05". */
export function formatCents(c: Cents): string {
  return (c / 100).toFixed(2);
}
`
	monoFormatTSTest = `import { test } from "node:test";
import assert from "node:assert/strict";

import { formatCents } from "./format.js";

test("two decimals", () => {
  assert.equal(formatCents(1205), "12.05");
  assert.equal(formatCents(5), "0.05");
});
`
)

// TestMonorepoRoutesEachFileToItsService: in a Go + TypeScript repository
// a change touching both languages is validated and tested by both
// services, each receiving only the source files of its own
// artifact_types (the Go service the .go files, the built-in command
// service the .ts files), and the PR's Go and TypeScript tests pass.
func TestMonorepoRoutesEachFileToItsService(t *testing.T) {
	ctx := context.Background()
	ts, err := demo.LoadSample("typescript")
	require.NoError(t, err)
	d, opts, err := ts.Service(ctx, os.Getenv)
	requireLangToolchain(t, err)
	opts.TestTimeout = 5 * time.Minute
	goSvc, goRec := routed(t, "go", goservicetest.Start(t, goservice.Options{}))
	tsSvc, tsRec := routed(t, "typescript", cmdservicetest.Start(t, d, opts))
	router := domain.NewRouterOf(goSvc, tsSvc)
	infos := []xval.ServiceInfo{{Name: "go", Domain: goSvc.Handshake.Domain}, {Name: "typescript", Domain: tsSvc.Handshake.Domain}}

	files := map[string]string{}
	root := "testdata/monorepo"
	require.NoError(t, fsWalk(root, func(rel, content string) {
		if rel == "go.mod.sample" {
			rel = "go.mod" // stored renamed: a go.mod would make testdata a module of its own
		}
		files[rel] = content
	}))
	changed := []string{"price/format.go", "price/format_test.go", "web/format.ts", "web/format.test.ts"}
	noFindings := map[string]any{"passed": true, "findings": []any{}}
	provider := demo.NewRuleProvider("monorepo", []demo.Rule{
		{Template: "classify", Answer: map[string]any{
			"type": "bug_fix", "affected_modules": []string{"price", "web"},
			"estimated_scope": map[string]any{"files": 4, "interfaces": 0, "complexity": "low"}, "safety_affecting": false,
			"rationale": "Prices show as raw cents in the API and the web client.",
		}},
		{Template: "planning", Answer: map[string]any{"sub_work_items": []map[string]any{{
			"id": "format", "title": "Format cents with two decimals", "description": "Cents.String in Go and formatCents in TypeScript.",
			"files": changed, "interfaces": []string{}, "symbols": []string{}, "tests": "Both formats.", "depends_on": []string{},
		}}}},
		{Template: "code_generation", Answer: map[string]any{"edits": []any{}, "deletes": []string{}, "renames": []any{}, "notes": "both sides",
			"files": []map[string]string{
				{"path": changed[0], "content": monoFormatGo}, {"path": changed[1], "content": monoFormatGoTest},
				{"path": changed[2], "content": monoFormatTS}, {"path": changed[3], "content": monoFormatTSTest},
			}}},
		{Template: "review_quality", Answer: noFindings},
		{Template: "review_architecture", Answer: noFindings},
		{Template: "review_security", Answer: noFindings},
	})
	run := runLangPipeline(t, files, "Prices show as raw cents", "The API and the web client print 1205 for 12.05; both must format cents with two decimals.",
		provider, router, infos)

	for _, m := range []string{"validate", "simulate"} {
		assert.Equal(t, []string{"price/format.go", "price/format_test.go"}, goRec.sources(m, ".go"), "%s: the Go service gets the .go files", m)
		assert.Empty(t, goRec.sources(m, ".ts"), "%s: no .ts file reaches the Go service", m)
		assert.Equal(t, []string{"web/format.test.ts", "web/format.ts"}, tsRec.sources(m, ".ts"), "%s: the command service gets the .ts files", m)
		assert.Empty(t, tsRec.sources(m, ".go"), "%s: no .go file reaches the TypeScript service", m)
	}
	goRec.mu.Lock()
	assert.NotContains(t, strings.Join(goRec.simPaths, " "), ".ts", "simulate asks the Go service about its own paths")
	goRec.mu.Unlock()

	arts := run.branchArtifacts(t, files)
	require.Len(t, arts, 4, "%+v", arts)
	res, err := router.Simulate(ctx, domain.Request{WorkItem: "final", Repository: domain.Repository{Path: run.ws}, Artifacts: arts},
		domain.SimulateParams{Timeout: "4m", Paths: changed})
	require.NoError(t, err)
	assert.True(t, res.Passed, "the PR branch's tests: %s", res.Output)
	var names []string
	for _, tr := range res.Tests {
		names = append(names, tr.Name)
	}
	assert.Contains(t, names, "TestCentsString")
	assert.Contains(t, names, "two decimals")
	t.Logf("BENCH sample=go+typescript github_requests=%d llm_calls=%d tokens_in=%d tokens_out=%d wall=%s",
		run.requests(), len(run.provider.requests), run.provider.in, run.provider.out, run.wall.Round(100*time.Millisecond))
}

// fsWalk calls fn with every regular file under root (slash paths
// relative to root) and its content.
func fsWalk(root string, fn func(rel, content string)) error {
	fsys := os.DirFS(root)
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fn(p, string(data))
		return nil
	})
}
