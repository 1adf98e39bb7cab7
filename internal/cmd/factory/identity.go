package factory

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

// OwnLogin resolves, once, the login whose comments are CogWorks's state:
// Factory.BotLogin, then COGWORKS_BOT_LOGIN, then GitHub's answer (the
// App's "<slug>[bot]", the token's user, or for an installation token the
// GraphQL viewer). Should GitHub refuse both inside an Action, the writes
// of its GITHUB_TOKEN are github-actions[bot]'s.
func (f *Factory) OwnLogin(ctx context.Context, gh Client) (string, error) {
	f.botOnce.Do(func() { f.bot, f.botErr = f.resolveBotLogin(ctx, gh) })
	return f.bot, f.botErr
}

func (f *Factory) resolveBotLogin(ctx context.Context, gh Client) (string, error) {
	if f.BotLogin != "" {
		return f.BotLogin, nil
	}
	if v := strings.TrimSpace(f.Env(EnvBotLogin)); v != "" {
		return v, nil
	}
	id, ok := gh.(identifier)
	if !ok {
		return "", &UsageError{Err: fmt.Errorf("cannot tell CogWorks's own comments from others: set %s", EnvBotLogin)}
	}
	login, err := id.Identity(ctx)
	if err == nil {
		return login, nil
	}
	var apiErr *github.APIError
	if f.Env("GITHUB_ACTIONS") == "true" && errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden {
		return actionsBot, nil
	}
	return "", fmt.Errorf("resolve the bot's own login (or set %s): %w", EnvBotLogin, err)
}
