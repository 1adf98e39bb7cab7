package factory

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"unicode/utf8"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// maxInlineRepoBytes keeps an inlined request under the Go domain
// service's 64 MiB request cap, with room for the JSON escaping.
const maxInlineRepoBytes = 40 << 20

type domainInlineKey struct{}

// WithDomainRepoInline marks a step whose domain service cannot see this
// process's files (its own container, sharing only the socket): each
// request carries the repository's files inline instead of a path.
func WithDomainRepoInline(ctx context.Context) context.Context {
	return context.WithValue(ctx, domainInlineKey{}, true)
}

func domainRepoInline(ctx context.Context) bool {
	v, _ := ctx.Value(domainInlineKey{}).(bool)
	return v
}

// inlineRepoDomain sends the files under a request's repository.path as
// artifacts (the request's own artifacts win) and clears the path, so
// the service builds its workspace from the request alone.
type inlineRepoDomain struct{ Inner stagekit.Domain }

// inlineRequest rewrites req. Only regular UTF-8 files are sent: artifacts are
// JSON strings, and .git, symbolic links and special files are left out
// as the service's own copy does. The held-out scenarios are sent only to
// scenario validation: with a path, the service masks them from every
// other stage's sandbox, and an inlined request has no path to mask, so
// they are never sent (see heldOutDirs).
func inlineRequest(req domain.Request) (domain.Request, error) {
	root := req.Repository.Path
	if root == "" {
		return req, nil
	}
	held := heldOutDirs(root, req.Stage)
	given := make(map[string]bool, len(req.Artifacts))
	for _, a := range req.Artifacts {
		given[filepath.ToSlash(filepath.Clean(a.Path))] = true
	}
	var files []domain.Artifact
	total := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if e.IsDir() && held[rel] {
			return filepath.SkipDir
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if given[rel] {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !utf8.Valid(data) {
			return nil
		}
		if total += len(data); total > maxInlineRepoBytes {
			return fmt.Errorf("repository files exceed %d MiB", maxInlineRepoBytes>>20)
		}
		files = append(files, domain.Artifact{Path: rel, Content: string(data)})
		return nil
	})
	if err != nil {
		return req, fmt.Errorf("inline repository %s for the domain service: %w", root, err)
	}
	req.Artifacts = append(files, req.Artifacts...)
	req.Repository.Path = ""
	return req, nil
}

// heldOutDirs returns the slash-separated directories of the repository
// at root that hold its held-out scenarios (the default one and the one
// its config names), or none for a scenario-validation request, the only
// one that runs them.
func heldOutDirs(root, stage string) map[string]bool {
	if stage == string(pipeline.StageScenarioValidation) {
		return nil
	}
	held := map[string]bool{path.Clean(config.Default().Scenarios.Directory): true}
	if cfg, err := config.Load(root); err == nil {
		held[path.Clean(filepath.ToSlash(cfg.Scenarios.Directory))] = true
	}
	return held
}

func (d inlineRepoDomain) Validate(ctx context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	req, err := inlineRequest(req)
	if err != nil {
		return domain.DiagnosticsResult{}, err
	}
	return d.Inner.Validate(ctx, req)
}

func (d inlineRepoDomain) Normalise(ctx context.Context, req domain.Request) (domain.NormaliseResult, error) {
	req, err := inlineRequest(req)
	if err != nil {
		return domain.NormaliseResult{}, err
	}
	return d.Inner.Normalise(ctx, req)
}

func (d inlineRepoDomain) ReviewRules(ctx context.Context, req domain.Request, p domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	req, err := inlineRequest(req)
	if err != nil {
		return domain.DiagnosticsResult{}, err
	}
	return d.Inner.ReviewRules(ctx, req, p)
}

func (d inlineRepoDomain) Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	req, err := inlineRequest(req)
	if err != nil {
		return domain.SimulateResult{}, err
	}
	return d.Inner.Simulate(ctx, req, p)
}

func (d inlineRepoDomain) ExtractInterfaces(ctx context.Context, req domain.Request) (domain.ExtractResult, error) {
	req, err := inlineRequest(req)
	if err != nil {
		return domain.ExtractResult{}, err
	}
	return d.Inner.ExtractInterfaces(ctx, req)
}
