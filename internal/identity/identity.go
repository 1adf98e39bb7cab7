// Package identity decides whose comments are CogWorks's state: the login
// CogWorks writes as, taken from configuration, the environment or GitHub.
package identity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// EnvBotLogin overrides the bot identity CogWorks trusts its own comments
// by (e.g. "my-app[bot]"); normally it is asked of GitHub.
const EnvBotLogin = "COGWORKS_BOT_LOGIN"

// actionsBot is the login of the Actions GITHUB_TOKEN's writes.
const actionsBot = "github-actions[bot]"

// identifier is the part of the GitHub client that knows who it is.
type identifier interface {
	Identity(ctx context.Context) (string, error)
}

// UnknownLoginError is returned when nothing names the login: no
// configured one, no COGWORKS_BOT_LOGIN, and a client that cannot ask
// GitHub. It is a usage error (the caller must set the variable).
type UnknownLoginError struct{}

func (*UnknownLoginError) Error() string {
	return fmt.Sprintf("cannot tell CogWorks's own comments from others: set %s", EnvBotLogin)
}

// ResolveLogin returns the login whose comments are CogWorks's state:
// configured (Factory.BotLogin), then COGWORKS_BOT_LOGIN read through
// getenv, then GitHub's answer through gh (the App's "<slug>[bot]", the
// token's user, or for an installation token the GraphQL viewer). Should
// GitHub refuse both inside an Action, the writes of its GITHUB_TOKEN are
// github-actions[bot]'s.
func ResolveLogin(ctx context.Context, gh any, configured string, getenv func(string) string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	if v := strings.TrimSpace(getenv(EnvBotLogin)); v != "" {
		return v, nil
	}
	id, ok := gh.(identifier)
	if !ok {
		return "", &UnknownLoginError{}
	}
	login, err := id.Identity(ctx)
	if err == nil {
		return login, nil
	}
	var apiErr *github.APIError
	if getenv("GITHUB_ACTIONS") == "true" && errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden {
		return actionsBot, nil
	}
	return "", fmt.Errorf("resolve the bot's own login (or set %s): %w", EnvBotLogin, err)
}
