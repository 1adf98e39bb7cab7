package factory

import "github.com/cogworks/cogworks/internal/gitremote"

// DefaultWorkspace is the checkout a command works in when --workspace is
// not given: $GITHUB_WORKSPACE in Actions, else the current directory.
func DefaultWorkspace(f *Factory) string {
	if ws := f.Env("GITHUB_WORKSPACE"); ws != "" {
		return ws
	}
	return "."
}

// DefaultTarget fills in what the flags left empty: the checkout
// (DefaultWorkspace), then the repository (gitremote.DefaultRepo, which
// may read the checkout's git config).
func DefaultTarget(f *Factory, repo, workspace *string) {
	if *workspace == "" {
		*workspace = DefaultWorkspace(f)
	}
	if *repo == "" {
		*repo = gitremote.DefaultRepo(f.Env, *workspace)
	}
}
