package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServiceOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	got := ServiceOptions{}.WithDefaults()
	assert.Equal(t, 4*time.Minute, got.CommandTimeout)
	assert.Equal(t, 9*time.Minute, got.TestTimeout)
	require.NotNil(t, got.Logger)
	assert.NotNil(t, got.Environ)
	assert.Equal(t, DefaultLimits().OutputBytes, got.Limits.OutputBytes)
	assert.Zero(t, got.WorkspaceBytes, "each service has its own default quota")

	set := ServiceOptions{CommandTimeout: time.Second, TestTimeout: 2 * time.Second, Environ: []string{}, Limits: Limits{OutputBytes: 7}}
	assert.Equal(t, set.CommandTimeout, set.WithDefaults().CommandTimeout)
	assert.Equal(t, set.TestTimeout, set.WithDefaults().TestTimeout)
	assert.Equal(t, []string{}, set.WithDefaults().Environ, "an empty environment stays empty")
	assert.Equal(t, 7, set.WithDefaults().Limits.OutputBytes)
}

// TestServiceOptionsWithConsent: the two environment variables operators
// set keep their names and meaning ("1" and nothing else consents).
func TestServiceOptionsWithConsent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		env              map[string]string
		unsafe, allowNet bool
	}{
		{"neither", nil, false, false},
		{"unsafe", map[string]string{"COGWORKS_UNSAFE_NO_SANDBOX": "1"}, true, false},
		{"network", map[string]string{"COGWORKS_SANDBOX_ALLOW_NETWORK": "1"}, false, true},
		{"only 1 consents", map[string]string{"COGWORKS_UNSAFE_NO_SANDBOX": "true", "COGWORKS_SANDBOX_ALLOW_NETWORK": "yes"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ServiceOptions{UnsafeNoSandbox: true, AllowNetwork: true}.WithConsent(func(k string) string { return tt.env[k] })
			assert.Equal(t, tt.unsafe, got.UnsafeNoSandbox)
			assert.Equal(t, tt.allowNet, got.AllowNetwork)
		})
	}
}
