package goservice

import (
	"net/url"
	"strings"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// passedGoVars are the only variables of the service's environment (or go
// env settings) the go command gets, besides those the service sets
// itself: where modules come from and which are private. Everything else
// — tokens, keys, the CI runner's variables — stays out, whatever its
// name.
var passedGoVars = []string{"GOPROXY", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "GOINSECURE", "GOFLAGS", "GOAMD64", "GOARM64", "GOARM", "GO386"}

// allowedGoFlags are the GOFLAGS entries that cannot make the go command
// run another program or read files outside the module: -toolexec,
// -exec, -overlay, -modfile, -pgo and the like are dropped.
var allowedGoFlags = map[string]bool{
	"-buildvcs": true, "-mod": true, "-tags": true, "-trimpath": true, "-p": true, "-race": true,
	"-gcflags": true, "-ldflags": true, "-asmflags": true, "-modcacherw": true, "-v": true,
	"-count": true, "-short": true, "-failfast": true, "-timeout": true,
}

// goSettings is the toolchain configuration of the host as `go env`
// reports it.
type goSettings map[string]string

// toolEnv returns the complete environment of a go command: PATH (GOROOT's
// bin first), a throw-away HOME, the allowed GO* settings with credentials
// stripped from URLs and GOFLAGS reviewed, and the service's own settings
// (extra last, so that they win).
func toolEnv(environ []string, settings goSettings, goroot string, extra ...string) []string {
	env := sandbox.MinimalEnv(environ)
	if goroot != "" {
		env[0] = "PATH=" + goroot + "/bin:" + strings.TrimPrefix(env[0], "PATH=")
	}
	for _, name := range passedGoVars {
		v := settings[name]
		switch name {
		case "GOPROXY", "GOSUMDB":
			v = stripCredentials(v)
		case "GOFLAGS":
			v = reviewGoFlags(v)
		}
		if v != "" {
			env = append(env, name+"="+v)
		}
	}
	env = append(env, "GOTOOLCHAIN=local", "GOWORK=off", "GOENV=off", "GOTELEMETRY=off", "GOPATH=/tmp/gopath")
	return append(env, extra...)
}

// stripCredentials removes user:password@ from every URL of a GOPROXY or
// GOSUMDB value (entries separated by commas, pipes or spaces).
func stripCredentials(v string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && !strings.ContainsRune(",| ", rune(v[i])) {
			continue
		}
		b.WriteString(stripURL(v[start:i]))
		if i < len(v) {
			b.WriteByte(v[i])
		}
		start = i + 1
	}
	return b.String()
}

func stripURL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if _, rest, ok := strings.Cut(s, "@"); ok {
			return rest // not a URL we understand: drop everything before @
		}
		return s
	}
	u.User = nil
	return u.String()
}

// reviewGoFlags keeps the allowed flags of a GOFLAGS value.
func reviewGoFlags(v string) string {
	var keep []string
	for _, f := range strings.Fields(v) {
		name, _, _ := strings.Cut(f, "=")
		name = "-" + strings.TrimLeft(name, "-")
		if allowedGoFlags[name] {
			keep = append(keep, f)
		}
	}
	return strings.Join(keep, " ")
}

// appendGoFlags adds flags to the GOFLAGS of env.
func appendGoFlags(env []string, flags string) []string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "GOFLAGS="); ok {
			out := append([]string(nil), env...)
			out[i] = "GOFLAGS=" + strings.TrimSpace(v+" "+flags)
			return out
		}
	}
	return append(env, "GOFLAGS="+flags)
}
