package factory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/identity"
)

// anonymous is a GitHub client that cannot say who it is (no Identity).
type anonymous struct{ factory.Client }

// TestOwnLoginNobodyNamedIsUsage: a login nothing names exits 2 (the user
// must set the variable), and the answer is memoised for the run.
func TestOwnLoginNobodyNamedIsUsage(t *testing.T) {
	t.Parallel()
	reads := 0
	f := &factory.Factory{Getenv: func(k string) string {
		if k == identity.EnvBotLogin {
			reads++
		}
		return ""
	}}
	_, err := f.OwnLogin(context.Background(), anonymous{})
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	assert.Contains(t, err.Error(), identity.EnvBotLogin)
	_, again := f.OwnLogin(context.Background(), anonymous{})
	assert.Equal(t, err, again)
	assert.Equal(t, 1, reads, "resolved once")
}
