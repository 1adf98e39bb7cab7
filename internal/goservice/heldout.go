package goservice

import (
	"path"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
)

// defaultScenarioDir is where held-out scenarios live unless the
// repository's config names another directory; both are held out.
const defaultScenarioDir = ".cogworks/scenarios"

// heldOutDirs returns the slash-separated directories of req's held-out
// scenarios that its workspace must not contain: none for a scenario
// run, else the default directory and the one the repository's config
// names. The config is the repository's, or, when the repository's files
// come inline (no path), the .cogworks/config.toml artifact's. The
// sandbox masks these directories in the repository; leaving them out of
// the workspace too covers the copies mirror would make next to an
// artifact placed among them, and a request that carries the repository
// inline, which has no repository to mask.
func heldOutDirs(req domain.Request) map[string]bool {
	if req.Stage == ScenarioStage {
		return nil
	}
	dirs := map[string]bool{defaultScenarioDir: true}
	cfg := config.Default()
	if req.Repository.Path != "" {
		if c, err := config.Load(req.Repository.Path); err == nil {
			cfg = c
		}
	} else {
		for _, a := range req.Artifacts {
			if path.Clean(a.Path) == config.Path && !a.Delete {
				if c, err := config.Parse(config.Path, []byte(a.Content)); err == nil {
					cfg = c
				}
			}
		}
	}
	if d := path.Clean(strings.ReplaceAll(cfg.Scenarios.Directory, `\`, "/")); d != "." && d != ".." && !strings.HasPrefix(d, "../") && !path.IsAbs(d) {
		dirs[d] = true
	}
	return dirs
}

// underAny reports whether the slash-separated path rel is one of dirs or
// lies beneath one.
func underAny(rel string, dirs map[string]bool) bool {
	for p := rel; p != "." && p != "/"; p = path.Dir(p) {
		if dirs[p] {
			return true
		}
	}
	return false
}
