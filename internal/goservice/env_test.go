package goservice

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestToolEnvKeepsSecretsFromGeneratedCode(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "HOME=/home/u", "GOPATH=/go", "GOFLAGS=-mod=mod", "GOPROXY=https://proxy", "TMPDIR=/tmp",
		"GITHUB_TOKEN=ghs_x", "COGWORKS_LLM_API_KEY=sk-x", "COGWORKS_GITHUB_APP_PRIVATE_KEY=pem",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN=t", "ACTIONS_RUNTIME_TOKEN=t", "AWS_SECRET_ACCESS_KEY=a",
		"NPM_TOKEN=n", "MY_API_KEY=k", "DB_PASSWORD=p", "anthropic_api_key=k",
	}
	assert.Equal(t, []string{"PATH=/usr/bin", "HOME=/home/u", "GOPATH=/go", "GOFLAGS=-mod=mod", "GOPROXY=https://proxy", "TMPDIR=/tmp"}, toolEnv(env))
}
