package root_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/doctor"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testkit"
)

// TestDoctorChecksTheDomainsToolchains: doctor said "ok" for a
// TypeScript checkout without node_modules, whose every run then skipped
// tsc and vitest and failed on `npm test`'s missing report (unjs/ufo as
// cloned); it now names what is missing and how to provide it.
func TestDoctorChecksTheDomainsToolchains(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "node"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	tests := []struct {
		name    string
		files   map[string]string
		domains []config.Domain
		status  string
		want    []string
	}{
		{name: "no domains", status: factory.CheckSkip},
		{name: "typescript without node_modules", files: map[string]string{"package.json": "{}"},
			domains: []config.Domain{{Name: "web", Preset: "typescript"}}, status: factory.CheckFail,
			want: []string{"web: no node_modules in the checkout", "npm ci", "setup_network"}},
		{name: "typescript with vitest", files: map[string]string{"package.json": "{}", "node_modules/.bin/vitest": "", "node_modules/.bin/tsc": ""},
			domains: []config.Domain{{Name: "web", Preset: "typescript"}}, status: factory.CheckOK, want: []string{"the commands of web are installed"}},
		{name: "typescript with npm test only", files: map[string]string{"package.json": "{}", "node_modules/left-pad/index.js": ""},
			domains: []config.Domain{{Name: "web", Preset: "typescript"}}, status: factory.CheckWarn, want: []string{"neither vitest nor jest-junit"}},
		{name: "typescript with set-up", files: map[string]string{"package.json": "{}"},
			domains: []config.Domain{{Name: "web", Preset: "typescript", Setup: "node install.js"}}, status: factory.CheckOK},
		{name: "custom test program missing", domains: []config.Domain{{Name: "c", ArtifactTypes: []string{".c"}, Test: "ctest --output-junit r.xml"}},
			status: factory.CheckFail, want: []string{"c: ctest is not on PATH"}},
		{name: "custom repository script missing", domains: []config.Domain{{Name: "c", ArtifactTypes: []string{".c"}, Test: "./run-tests.sh"}},
			status: factory.CheckFail, want: []string{"./run-tests.sh is not in the checkout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			testkit.WriteTree(t, ws, tt.files)
			f := &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}},
				Getenv: func(k string) string {
					if k == "PATH" {
						return bin
					}
					return ""
				}}
			c := doctor.CheckToolchains(context.Background(), f, ws, tt.domains)
			assert.Equal(t, tt.status, c.Status, c.Detail)
			for _, w := range tt.want {
				assert.Contains(t, c.Detail+" "+c.Fix, w)
			}
		})
	}
}
