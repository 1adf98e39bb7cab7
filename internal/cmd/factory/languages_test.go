package factory_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/doctor"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testkit"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
)

func TestDetectLanguages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string // name@marker
	}{
		{name: "go module", files: map[string]string{"go.mod": "module x\n"}, want: []string{"Go@go.mod"}},
		{name: "src-layout python with a web/ typescript app", files: map[string]string{
			"pyproject.toml": "", "src/pkg/__init__.py": "", "web/package.json": "{}", "web/node_modules/x/package.json": "{}"},
			want: []string{"Python@pyproject.toml", "TypeScript/JavaScript@web/package.json"}},
		{name: "go and rust monorepo", files: map[string]string{"api/go.mod": "module a\n", "engine/Cargo.toml": "", "tools/build.gradle": ""},
			want: []string{"Go@api/go.mod", "Rust@engine/Cargo.toml", "Java@tools/build.gradle"}},
		{name: "hidden and vendored directories are not projects", files: map[string]string{".venv/pyproject.toml": "", "vendor/x/go.mod": "", "README.md": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			testkit.WriteTree(t, ws, tt.files)
			var got []string
			for _, l := range factory.DetectLanguages(ws) {
				got = append(got, l.Name+"@"+l.Marker)
			}
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}

// The first run of issue 27: a Python + TypeScript repository with no
// service. init said nothing and doctor only warned; both now say which
// languages no service covers and point at the doc.
func TestInitAndDoctorSayWhichLanguagesHaveNoService(t *testing.T) {
	t.Parallel()
	py := &domaintest.Fake{}
	srv := httptest.NewServer(domaintest.Handler(py, domain.HandshakeResult{
		Name: "python", ServiceVersion: "0.1.0", APIVersion: domain.APIVersion, Domain: "software",
		Capabilities: []string{domain.MethodValidate}, ArtifactTypes: []string{".py"},
		InterfaceTypes: []string{}, InterfaceVersions: map[string][]string{},
	}))
	t.Cleanup(srv.Close)
	repo := map[string]string{"pyproject.toml": "[project]\nname = \"pkg\"\n", "src/pkg/__init__.py": "", "web/package.json": "{}"}
	tests := []struct {
		name       string
		services   string
		wantStatus string
		want       []string
		notWant    []string
		domains    []config.Domain
	}{
		{name: "no service at all", wantStatus: factory.CheckFail,
			want: []string{"Python (pyproject.toml, .py files)", "TypeScript/JavaScript (web/package.json, .ts files)", ".cogworks/services.toml", "docs/domain-services.md"}},
		{name: "python registered, typescript not", services: "[[services]]\nname = \"python\"\ntransport = \"http\"\nendpoint = \"" + srv.URL + "\"\n",
			wantStatus: factory.CheckWarn, want: []string{"handshake answered by python", "TypeScript/JavaScript (web/package.json"}, notWant: []string{"Python (pyproject.toml"}},
		{name: "both declared as [[domains]]", domains: []config.Domain{{Name: "api", Preset: "python"}, {Name: "web", Preset: "typescript"}},
			wantStatus: factory.CheckOK, want: []string{"the built-in command service serves .py"}, notWant: []string{"no domain service covers"}},
		{name: "python declared, typescript not", domains: []config.Domain{{Name: "api", Preset: "python"}},
			wantStatus: factory.CheckWarn, want: []string{"TypeScript/JavaScript (web/package.json", "[[domains]]"}, notWant: []string{"Python (pyproject.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			testkit.WriteTree(t, ws, repo)
			if tt.services != "" {
				testkit.WriteTree(t, ws, map[string]string{".cogworks/services.toml": tt.services})
			}
			f := &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
			c := doctor.CheckServices(context.Background(), f, ws, tt.domains)
			assert.Equal(t, tt.wantStatus, c.Status, c.Detail)
			for _, w := range tt.want {
				assert.Contains(t, c.Detail+" "+c.Fix, w)
			}
			for _, w := range tt.notWant {
				assert.NotContains(t, c.Detail, w)
			}

			if tt.domains != nil {
				return
			}
			if tt.services != "" {
				assert.Empty(t, initcmd.InitServicesNote(ws, nil), "init leaves a registered services file to doctor")
				return
			}
			var out bytes.Buffer
			f.IO.Out = &out
			require.NoError(t, initcmd.WriteFiles(f, &initcmd.InitOptions{Workspace: ws}))
			// init serves the root's Python with a [[domains]] table; the
			// web/ project's commands would need a cd, so it is named.
			assert.Contains(t, out.String(), "[[domains]] for python")
			assert.Contains(t, out.String(), "no domain service covers TypeScript/JavaScript (web/package.json, .ts files)")
			assert.NotContains(t, out.String(), "Python (pyproject.toml")
			assert.Contains(t, out.String(), "docs/domain-services.md")
			cfg, err := config.Load(ws)
			require.NoError(t, err)
			c = doctor.CheckServices(context.Background(), f, ws, cfg.Domains)
			assert.Equal(t, factory.CheckWarn, c.Status, "after init only web/ is uncovered: %s", c.Detail)
		})
	}
}

func TestInitSaysNothingForAGoModule(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	testkit.WriteTree(t, ws, map[string]string{"go.mod": "module x\n"})
	assert.Empty(t, initcmd.InitServicesNote(ws, nil), "the built-in Go service covers it")
}
