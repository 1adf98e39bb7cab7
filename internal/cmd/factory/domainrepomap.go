package factory

import (
	"context"

	"github.com/cogworks/cogworks/domain"
)

// repoMapper is the optional repo_map method (Extension API 1.1.0) that
// stagekit.LoadRepoMap looks for. The wrappers below must pass it on:
// without it the repository map never reaches planning or code
// generation, because production always wraps the router.
type repoMapper interface {
	RepoMap(ctx context.Context, req domain.Request) (domain.RepoMapResult, error)
}

// unsupportedRepoMap is the answer when the wrapped domain has no
// repo_map: the same error a service gives, which LoadRepoMap reads as
// "localise by directory".
func unsupportedRepoMap() error {
	return &domain.Error{Code: domain.CodeUnsupportedMethod, Message: "repo_map is not offered by this domain", Method: "repo_map"}
}

// RepoMap passes the repository map request on with the step's tenant.
func (d tenantDomain) RepoMap(ctx context.Context, req domain.Request) (domain.RepoMapResult, error) {
	m, ok := d.Inner.(repoMapper)
	if !ok {
		return domain.RepoMapResult{}, unsupportedRepoMap()
	}
	return m.RepoMap(ctx, d.stamp(req))
}

// RepoMap passes the repository map request on with the repository
// inlined, as for every other method.
func (d inlineRepoDomain) RepoMap(ctx context.Context, req domain.Request) (domain.RepoMapResult, error) {
	m, ok := d.Inner.(repoMapper)
	if !ok {
		return domain.RepoMapResult{}, unsupportedRepoMap()
	}
	req, err := inlineRequest(req)
	if err != nil {
		return domain.RepoMapResult{}, err
	}
	return m.RepoMap(ctx, req)
}
