package factory

import (
	"context"
	"errors"

	"github.com/cogworks/cogworks/internal/identity"
)

// OwnLogin resolves, once, the login whose comments are CogWorks's state
// (identity.ResolveLogin has the order); a login nothing names is a usage
// error.
func (f *Factory) OwnLogin(ctx context.Context, gh Client) (string, error) {
	f.botOnce.Do(func() {
		f.bot, f.botErr = identity.ResolveLogin(ctx, gh, f.BotLogin, f.Env)
		var unknown *identity.UnknownLoginError
		if errors.As(f.botErr, &unknown) {
			f.botErr = &UsageError{Err: f.botErr}
		}
	})
	return f.bot, f.botErr
}
