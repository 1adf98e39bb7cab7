package factory

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/stages/stagekit"
)

type domainTenantKey struct{}

// WithDomainTenant names the tenant a step's domain-service requests are
// for (see domain.Repository.Tenant). An outer call wins: serve names the
// installation before productionExecutors would name the repository alone.
func WithDomainTenant(ctx context.Context, tenant string) context.Context {
	if domainTenant(ctx) != "" {
		return ctx
	}
	return context.WithValue(ctx, domainTenantKey{}, tenant)
}

// domainTenant is the tenant WithDomainTenant put on ctx, or "".
func domainTenant(ctx context.Context) string {
	v, _ := ctx.Value(domainTenantKey{}).(string)
	return v
}

// InstallationTenant is the tenant of a serve job: the installation and
// the repository, so that neither a second repository of an installation
// nor the same repository under another installation shares its caches.
func InstallationTenant(installation int64, repo github.Repo) string {
	return fmt.Sprintf("installation/%d/repo/%s", installation, repo)
}

// RepoTenant is the tenant of a step outside serve (one repository per
// process: the Action, cron, a developer's `cogworks process`).
func RepoTenant(repo github.Repo) string { return "repo/" + repo.String() }

// tenantDomain stamps every request with the step's tenant.
type tenantDomain struct {
	Inner  stagekit.Domain
	Tenant string
}

func (d tenantDomain) stamp(req domain.Request) domain.Request {
	req.Repository.Tenant = d.Tenant
	return req
}

func (d tenantDomain) Validate(ctx context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	return d.Inner.Validate(ctx, d.stamp(req))
}

func (d tenantDomain) Normalise(ctx context.Context, req domain.Request) (domain.NormaliseResult, error) {
	return d.Inner.Normalise(ctx, d.stamp(req))
}

func (d tenantDomain) ReviewRules(ctx context.Context, req domain.Request, p domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	return d.Inner.ReviewRules(ctx, d.stamp(req), p)
}

func (d tenantDomain) Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	return d.Inner.Simulate(ctx, d.stamp(req), p)
}

func (d tenantDomain) ExtractInterfaces(ctx context.Context, req domain.Request) (domain.ExtractResult, error) {
	return d.Inner.ExtractInterfaces(ctx, d.stamp(req))
}
