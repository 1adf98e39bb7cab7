package factory

func DefaultWorkspace(f *Factory) string {
	if ws := f.Env("GITHUB_WORKSPACE"); ws != "" {
		return ws
	}
	return "."
}
