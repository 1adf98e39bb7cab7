package stagekit

import (
	"context"
	"log/slog"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/xval"
)

// Domain is what the executors need from the primary domain service
// (*domain.Client implements it).
type Domain interface {
	Validate(ctx context.Context, req domain.Request) (domain.DiagnosticsResult, error)
	Normalise(ctx context.Context, req domain.Request) (domain.NormaliseResult, error)
	ReviewRules(ctx context.Context, req domain.Request, p domain.ReviewRulesParams) (domain.DiagnosticsResult, error)
	Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error)
	ExtractInterfaces(ctx context.Context, req domain.Request) (domain.ExtractResult, error)
}

// Deps are the ports and settings every executor shares. The held-out
// scenarios are not among them: only scenario validation is given them
// (scenario.Deps), so no other stage can read them. Workspace is a
// local checkout of the target repository's default branch (the Action's
// GITHUB_WORKSPACE); it is the source of repo modules, ADRs, the interface
// registry and scenarios, and the path the domain service overlays
// artifacts on.
type Deps struct {
	LLM       *llm.Gateway
	Domain    Domain
	Workspace string
	Repo      contextpack.Repository
	Registry  *xval.Registry
	// Services are the handshakes of registered domain services (for
	// cross-domain checks); Warnings are availability warnings to surface
	// in PRs and the audit trail (ASSERT-EXT-002).
	Services []xval.ServiceInfo
	Warnings []string
	Clock    func() time.Time
	Logger   *slog.Logger
}

// PrimaryDomain is the domain of the first registered service ("" when
// none is known).
func (d Deps) PrimaryDomain() string {
	if len(d.Services) > 0 {
		return d.Services[0].Domain
	}
	return ""
}
