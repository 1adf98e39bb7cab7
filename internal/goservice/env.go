package goservice

import "strings"

// secretMarkers are the parts of variable names that carry credentials.
// The go command runs generated code (tests, and the packages they
// import), which could read the environment and print or send what it
// finds, so none of these reach it.
var secretMarkers = []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE", "AUTH", "COOKIE", "SESSION"}

// secretPrefixes name whole families of variables that never concern the
// go command: CogWorks's own settings and the CI runner's.
var secretPrefixes = []string{"COGWORKS_", "GITHUB_", "ACTIONS_", "RUNNER_", "AWS_", "AZURE_", "GOOGLE_", "OPENAI_", "ANTHROPIC_"}

// toolEnv returns env without the variables that may hold secrets.
func toolEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !secretName(strings.ToUpper(name)) {
			out = append(out, kv)
		}
	}
	return out
}

func secretName(name string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if strings.HasPrefix(name, "GO") {
		return false // GOPROXY, GOFLAGS, GONOSUMDB…: the toolchain's own
	}
	for _, m := range secretMarkers {
		if strings.Contains(name, m) {
			return true
		}
	}
	return false
}
