package factory

// DefaultWorkspace is the checkout a command works in when --workspace is
// not given: $GITHUB_WORKSPACE in Actions, else the current directory.
func DefaultWorkspace(f *Factory) string {
	if ws := f.Env("GITHUB_WORKSPACE"); ws != "" {
		return ws
	}
	return "."
}
