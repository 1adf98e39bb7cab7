package goservice_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
)

// inlinedRepo is redTeamRepo's module as `serve --domain-inline-repo`
// sends it: every file an artifact, no repository path.
func inlinedRepo(extra ...domain.Artifact) []domain.Artifact {
	return append([]domain.Artifact{
		{Path: "go.mod", Content: "module example.com/rt\n\ngo 1.22\n"},
		{Path: "rt/rt.go", Content: "package rt\n\n// Answer is 42.\nfunc Answer() int { return 42 }\n"},
	}, extra...)
}

// TestRedTeam_InlinedTenantsShareNoBuildCache: tenant A's generated test
// writes a file into its build cache; tenant B's test looks for it. Every
// inlined request has the empty repository path, and the build cache
// layer was keyed on sha256(path) alone, so before the layer was keyed by
// the request's tenant B read what A planted (the "different tenants"
// and "no tenant" cases failed; "same tenant" shows the plant works).
func TestRedTeam_InlinedTenantsShareNoBuildCache(t *testing.T) {
	requireRedTeam(t)
	c := startService(t, goservice.Options{CacheDir: t.TempDir()})
	for _, tt := range []struct {
		name   string
		a, b   string
		shared bool
	}{
		{"different tenants", "installation/1/repo/acme/a", "installation/2/repo/evil/b", false},
		{"no tenant", "", "", false},
		{"same tenant", "installation/1/repo/acme/a", "installation/1/repo/acme/a", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Shaped like a build cache entry (<2 hex>/<64 hex>-a): the
			// cache quota removes anything else after each request, and a
			// poisoned entry is what one tenant could plant for another.
			name := fmt.Sprintf("ff/%064x-a", time.Now().UnixNano())
			plant := fmt.Sprintf(`package rt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPlant(t *testing.T) {
	p := filepath.Join(os.Getenv("GOCACHE"), %q)
	_ = os.MkdirAll(filepath.Dir(p), 0o755)
	err := os.WriteFile(p, []byte("from tenant A"), 0o644)
	t.Logf("ATTACK-RAN plant err=%%v", err)
}
`, name)
			peek := fmt.Sprintf(`package rt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPeek(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(os.Getenv("GOCACHE"), %q))
	t.Logf("ATTACK-RAN peek=%%q err=%%v", b, err)
}
`, name)
			run := func(tenant, src string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res, err := c.Simulate(ctx, domain.Request{Stage: "code-generation", Repository: domain.Repository{Tenant: tenant},
					Artifacts: inlinedRepo(domain.Artifact{Path: "rt/attack_test.go", Content: src})},
					domain.SimulateParams{Packages: []string{"./rt"}, Timeout: "30s"})
				require.NoError(t, err)
				require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
				return res.Output
			}
			require.Contains(t, run(tt.a, plant), "plant err=<nil>", "the plant reached the cache layer")
			out := run(tt.b, peek)
			if tt.shared {
				assert.Contains(t, out, "from tenant A", "a tenant keeps its own cache between requests")
			} else {
				assert.NotContains(t, out, "from tenant A", "tenant B read what tenant A planted")
			}
		})
	}
}

// TestRedTeam_InlinedScenariosHiddenOutsideScenarioRuns: a request that
// carries the repository inline, held-out scenario included, had nothing
// for the sandbox to mask: a code-generation test read the scenario from
// its workspace. And an artifact placed among the scenarios made the
// workspace copy the scenario files next to it, outside the mask. Now
// the scenario directories are in no workspace but a scenario run's.
func TestRedTeam_InlinedScenariosHiddenOutsideScenarioRuns(t *testing.T) {
	requireRedTeam(t)
	c := startService(t, goservice.Options{CacheDir: t.TempDir()})
	repo := redTeamRepo(t, "")
	peek := domain.Artifact{Path: "rt/peek_test.go", Content: `package rt

import (
	"os"
	"testing"
)

func TestPeek(t *testing.T) {
	b, err := os.ReadFile("../.cogworks/scenarios/holdout.toml")
	t.Logf("ATTACK-RAN holdout=%q err=%v", b, err)
}
`}
	holdout := domain.Artifact{Path: ".cogworks/scenarios/holdout.toml", Content: "id = \"SCN-1\"\n# expected answer: 42\n"}
	for _, tt := range []struct {
		name    string
		req     domain.Request
		visible bool
	}{
		{"inlined, code generation", domain.Request{Stage: "code-generation", Artifacts: inlinedRepo(holdout, peek)}, false},
		{"inlined, no stage", domain.Request{Artifacts: inlinedRepo(holdout, peek)}, false},
		{"inlined, scenario run", domain.Request{Stage: goservice.ScenarioStage, Artifacts: inlinedRepo(holdout, peek)}, true},
		{"artifact among the scenarios", domain.Request{Stage: "code-generation", Repository: domain.Repository{Path: repo},
			Artifacts: []domain.Artifact{{Path: ".cogworks/scenarios/new.toml", Content: "id = \"x\"\n"}, peek}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := c.Simulate(ctx, tt.req, domain.SimulateParams{Packages: []string{"./rt"}, Timeout: "30s"})
			require.NoError(t, err)
			require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
			if tt.visible {
				assert.Contains(t, res.Output, "expected answer: 42", "scenario runs see their scenarios")
			} else {
				assert.NotContains(t, res.Output, "expected answer", "the held-out scenario is hidden")
			}
		})
	}
}
