package identity_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/identity"
)

// knower answers Identity with a fixed login or error.
type knower struct {
	login string
	err   error
}

func (k knower) Identity(context.Context) (string, error) { return k.login, k.err }

func TestResolveLoginOrder(t *testing.T) {
	t.Parallel()
	forbidden := &github.APIError{Method: "GET", Path: "/user", Status: http.StatusForbidden}
	tests := []struct {
		name       string
		gh         any
		configured string
		env        map[string]string
		want       string
		wantErr    string
		unknown    bool
	}{
		{name: "the configured login wins", gh: knower{login: "asked"}, configured: "set[bot]",
			env: map[string]string{identity.EnvBotLogin: "env[bot]"}, want: "set[bot]"},
		{name: "then the variable, trimmed", gh: knower{login: "asked"},
			env: map[string]string{identity.EnvBotLogin: " env[bot] "}, want: "env[bot]"},
		{name: "then GitHub's answer", gh: knower{login: "app[bot]"}, want: "app[bot]"},
		{name: "a client that cannot ask is a usage error", gh: struct{}{}, unknown: true,
			wantErr: "cannot tell CogWorks's own comments from others: set " + identity.EnvBotLogin},
		{name: "refused inside an Action: the GITHUB_TOKEN's bot", gh: knower{err: forbidden},
			env: map[string]string{"GITHUB_ACTIONS": "true"}, want: "github-actions[bot]"},
		{name: "refused outside an Action: an error naming the variable", gh: knower{err: forbidden},
			wantErr: "resolve the bot's own login (or set " + identity.EnvBotLogin + ")"},
		{name: "another failure inside an Action is not guessed", gh: knower{err: errors.New("boom")},
			env: map[string]string{"GITHUB_ACTIONS": "true"}, wantErr: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := identity.ResolveLogin(context.Background(), tt.gh, tt.configured, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				var unknown *identity.UnknownLoginError
				assert.Equal(t, tt.unknown, errors.As(err, &unknown))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
