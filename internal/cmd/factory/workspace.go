package factory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cogworks/cogworks/internal/config"
)

// LoadConfig reads the repository config of workspace. A workspace that
// does not exist (or is not a directory) is a usage error naming it; a
// workspace without .cogworks/ gets the built-in defaults, with a notice
// in the log so the fallback is never silent.
func (f *Factory) LoadConfig(workspace string) (config.Config, error) {
	if err := CheckWorkspace(workspace); err != nil {
		return config.Config{}, err
	}
	dir := filepath.Join(workspace, filepath.Dir(config.Path))
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		f.Logger().Warn("no .cogworks/ directory in the workspace: using the built-in defaults (run `cogworks init` to write them)",
			"workspace", workspace)
	}
	cfg, err := config.Load(workspace)
	if err != nil {
		return config.Config{}, &UsageError{Err: err}
	}
	if cfg.LLM.ModelsFile != "" && !filepath.IsAbs(cfg.LLM.ModelsFile) {
		cfg.LLM.ModelsFile = filepath.Join(workspace, cfg.LLM.ModelsFile)
	}
	return f.WithLLMEnv(cfg), nil
}

// CheckWorkspace reports a missing or non-directory workspace as a usage
// error.
func CheckWorkspace(workspace string) error {
	st, err := os.Stat(workspace)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &UsageError{Err: fmt.Errorf("workspace %s does not exist (set --workspace or GITHUB_WORKSPACE to the repository checkout)", workspace)}
	case err != nil:
		return &UsageError{Err: fmt.Errorf("workspace %s: %w", workspace, err)}
	case !st.IsDir():
		return &UsageError{Err: fmt.Errorf("workspace %s is not a directory", workspace)}
	}
	return nil
}
