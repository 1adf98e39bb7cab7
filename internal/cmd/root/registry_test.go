package root_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/testenv"
)

func TestRegistryValidate(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	good := filepath.Join("..", "..", "demo", "testdata", "sample")
	require.NoError(t, cmdtest.Execute(t, f, "registry", "validate", "--workspace", good))
	assert.Contains(t, out.String(), "1 interface(s), valid")

	ws := t.TempDir()
	dir := filepath.Join(ws, ".cogworks", "interfaces")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "can.toml"), []byte(
		"id = \"SWD-IF-CAN-01\"\nversion = \"1.0.0\"\ntype = \"bus_protocol\"\ntitle = \"CAN\"\nowner = \"firmware\"\nparticipants = [\"software\"]\n"+
			"[parameters.max_bus_load]\nkind = \"tolerance\"\nnominal = 0.3\nmin = 0.0\nmax = \"half\"\n"), 0o644))
	out.Reset()
	err := cmdtest.Execute(t, f, "registry", "validate", "--workspace", ws)
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	for _, want := range []string{"can.toml", "SWD-IF-CAN-01", "parameters.max_bus_load.max"} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	sock := goservicetest.Start(t, goservice.Options{})
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".cogworks"), 0o755))
	services := fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n\n[[services]]\nname = \"firmware\"\ntransport = \"unix\"\nendpoint = %q\n",
		sock, filepath.Join(ws, "dead.sock"))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".cogworks", "services.toml"), []byte(services), 0o644))

	require.NoError(t, cmdtest.Execute(t, f, "health", "go", "--workspace", ws))
	table := out.String()
	assert.Contains(t, table, "SERVICE")
	assert.Contains(t, table, "software")
	assert.Contains(t, table, "validate")
	assert.True(t, strings.Contains(table, " ok"), table)

	out.Reset()
	err := cmdtest.Execute(t, f, "health", "--workspace", ws)
	require.Error(t, err, "an unavailable service fails the health check")
	assert.Contains(t, out.String(), "firmware")
	assert.Contains(t, out.String(), "unavailable")

	err = cmdtest.Execute(t, f, "health", "nope", "--workspace", ws)
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
}

// TestHealthWithoutRegistrationSaysWhatToDo: health reads only the
// registry, so its errors name the file that is missing or empty and what
// to do about it.
func TestHealthWithoutRegistrationSaysWhatToDo(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ws := t.TempDir()
	missing := filepath.Join(ws, "etc", "services.toml")
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing registered", nil, []string{"no domain services registered in " + filepath.Join(ws, ".cogworks", "services.toml"),
			"docs/domain-services.md", "built-in Go domain service", "cogworks doctor"}},
		{"the named file is missing", map[string]string{"COGWORKS_DOMAIN_SERVICES_CONFIG": missing},
			[]string{"COGWORKS_DOMAIN_SERVICES_CONFIG: " + missing + " does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := cmdtest.TestFactory(t, env)
			f.Getenv = func(k string) string { return tt.env[k] }
			err := cmdtest.Execute(t, f, "health", "--workspace", ws)
			require.Error(t, err)
			assert.Equal(t, 2, factory.ExitCode(err))
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
