package goservice

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripCredentials(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://proxy.golang.org,direct", "https://proxy.golang.org,direct"},
		{"https://user:pw@goproxy.corp/mod", "https://goproxy.corp/mod"},
		{"https://u:p@a.example|https://token@b.example,off", "https://a.example|https://b.example,off"},
		{"sum.golang.org+033de0ae https://user:pw@sum.corp", "sum.golang.org+033de0ae https://sum.corp"},
		{"off", "off"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, stripCredentials(tt.in))
		})
	}
}

func TestReviewGoFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"-buildvcs=false -mod=mod", "-buildvcs=false -mod=mod"},
		{"-toolexec=/tmp/x -mod=mod", "-mod=mod"},
		{"-overlay=/tmp/o.json -modfile=/tmp/go.mod -exec=/tmp/run -pgo=/etc/shadow", ""},
		{"--tags=integration -trimpath", "--tags=integration -trimpath"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, reviewGoFlags(tt.in))
		})
	}
}

func TestToolEnvIsAnAllowList(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u", "GITHUB_TOKEN=ghs_x", "COGWORKS_LLM_API_KEY=sk-x", "AWS_SECRET_ACCESS_KEY=a",
		"NPM_TOKEN=n", "SOME_UNMARKED_VAR=v", "GOPROXY=https://user:pw@env.example",
	}
	settings := goSettings{"GOPROXY": "https://user:pw@proxy.corp", "GOPRIVATE": "corp.example/*", "GOFLAGS": "-toolexec=evil -mod=mod", "GOROOT": "/go"}
	env := toolEnv(environ, settings, "/go", "CGO_ENABLED=0")
	joined := strings.Join(env, "\n")
	for _, secret := range []string{"ghs_x", "sk-x", "AWS_", "NPM_TOKEN", "SOME_UNMARKED_VAR", "pw@", "/home/u", "toolexec"} {
		assert.NotContains(t, joined, secret)
	}
	for _, want := range []string{"PATH=/go/bin:/usr/bin", "HOME=/tmp/home", "GOPROXY=https://proxy.corp", "GOPRIVATE=corp.example/*",
		"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off", "CGO_ENABLED=0"} {
		assert.Contains(t, env, want)
	}
}
