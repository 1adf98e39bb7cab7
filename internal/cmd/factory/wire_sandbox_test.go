package factory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/testkit"
)

func TestTwinSandboxNetworkNeedsRepositoryAndOperator(t *testing.T) {
	t.Parallel()
	ns := sandbox.Isolation{Mode: sandbox.Namespaces}
	tests := []struct {
		name     string
		repo     bool
		operator string
		unsafe   string
		network  bool
		isUnsafe bool
	}{
		{"neither", false, "", "", false, false},
		{"repository only", true, "", "", false, false},
		{"operator only", false, "1", "", false, false},
		{"both", true, "1", "", true, false},
		{"unsafe opt-out passes through", false, "", "1", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{sandbox.AllowNetworkEnv: tt.operator, sandbox.UnsafeEnv: tt.unsafe, "PATH": "/usr/bin", "COGWORKS_GITHUB_TOKEN": "ghs_x"}
			f := &factory.Factory{IO: factory.IOStreams{ErrOut: &testkit.SyncBuffer{}}, Getenv: func(k string) string { return env[k] },
				ProbeSandbox: func(context.Context) sandbox.Isolation { return ns }}
			cfg := config.Default()
			cfg.Sandbox.Network = tt.repo
			sb := f.TwinSandbox(context.Background(), cfg)
			assert.Equal(t, tt.network, sb.Network)
			assert.Equal(t, tt.isUnsafe, sb.Unsafe)
			assert.Equal(t, ns, sb.Isolation)
			assert.Equal(t, []string{"PATH=/usr/bin"}, sb.Environ, "twins get PATH, never the process's secrets")
		})
	}
}
