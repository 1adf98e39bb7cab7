package cmdservice

import (
	"cmp"
	"context"
	"path"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/langmap"
)

// mapsLanguage reports whether langmap reads one of the domain's artifact
// types: repo_map is offered only then, so a domain of a language the map
// does not know answers unsupported_method rather than an empty map.
func (d Domain) mapsLanguage() bool {
	for _, t := range d.ArtifactTypes {
		if strings.HasPrefix(t, ".") && langmap.Supported("x"+t) {
			return true
		}
	}
	return false
}

// repoMap answers repo_map from source text alone (internal/langmap: it
// parses, never runs anything of the repository), keeping the files of
// the domain's own artifact types, so that a monorepo's services each map
// their part.
func (s *service) repoMap(ctx context.Context, req domain.Request) (any, error) {
	if req.Repository.Path == "" {
		return nil, extserver.Errorf(domain.CodeInvalidRequest, "repo_map needs repository.path")
	}
	res, err := langmap.MapRequest(ctx, req)
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "repo_map of %s: %v", req.Repository.Path, err)
	}
	pkgs := res.Packages[:0]
	for _, p := range res.Packages {
		files := p.Files[:0]
		for _, f := range p.Files {
			if s.d.covers(f.Path) {
				files = append(files, f)
			}
		}
		if len(files) > 0 {
			p.Files = files
			if p.ImportPath == "" {
				// Root-level files (conftest.py, setup.py) belong to no
				// package; they are named by the project, as the Go
				// service names its root package by the module path.
				p.ImportPath = cmp.Or(res.Module, p.Dir)
			}
			pkgs = append(pkgs, p)
		}
	}
	res.Packages = pkgs
	if res.Diagnostics == nil {
		res.Diagnostics = []domain.Diagnostic{}
	}
	return res, nil
}

// covers reports whether file is of one of the domain's artifact types
// (an extension, or a whole base name such as Cargo.toml).
func (d Domain) covers(file string) bool {
	base := path.Base(file)
	for _, t := range d.ArtifactTypes {
		if t == base || strings.HasPrefix(t, ".") && strings.HasSuffix(base, t) {
			return true
		}
	}
	return false
}
