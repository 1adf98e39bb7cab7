package action

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// golangciConfig is the whole of .golangci.yml (golangci-lint v2).
// Decoding is strict, so a key added to it (a disabled linter, an
// exclusion rule or path) fails TestGolangciConfig until this test is
// changed with it on purpose.
type golangciConfig struct {
	Version string `yaml:"version"`
	Run     struct {
		BuildTags []string `yaml:"build-tags"`
	} `yaml:"run"`
	Linters struct {
		Default    string   `yaml:"default"`
		Enable     []string `yaml:"enable"`
		Disable    []string `yaml:"disable"`
		Exclusions struct {
			Presets []string `yaml:"presets"`
			Rules   []any    `yaml:"rules"`
			Paths   []string `yaml:"paths"`
		} `yaml:"exclusions"`
		Settings struct {
			Nolintlint struct {
				RequireSpecific    bool `yaml:"require-specific"`
				RequireExplanation bool `yaml:"require-explanation"`
				AllowUnused        bool `yaml:"allow-unused"`
			} `yaml:"nolintlint"`
		} `yaml:"settings"`
	} `yaml:"linters"`
	Issues struct {
		MaxIssuesPerLinter *int `yaml:"max-issues-per-linter"`
		MaxSameIssues      *int `yaml:"max-same-issues"`
	} `yaml:"issues"`
}

// TestGolangciConfig holds .golangci.yml to what Issue 18 asks: the
// default linters with the std-error-handling preset over the e2e tests
// too, nothing disabled or excluded wholesale, a //nolint only with its
// linter and reason, and every finding reported.
func TestGolangciConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".golangci.yml"))
	require.NoError(t, err)
	var cfg golangciConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&cfg))

	assert.Equal(t, "2", cfg.Version, "v2 configuration format")
	assert.Contains(t, cfg.Run.BuildTags, "e2e", "the e2e-tagged tests are linted")
	assert.Equal(t, "standard", cfg.Linters.Default, "errcheck, govet, ineffassign, staticcheck, unused")
	assert.Empty(t, cfg.Linters.Disable, "no default linter is turned off")
	assert.Equal(t, []string{"nolintlint"}, cfg.Linters.Enable)
	assert.Equal(t, []string{"std-error-handling"}, cfg.Linters.Exclusions.Presets)
	assert.Empty(t, cfg.Linters.Exclusions.Rules, "no blanket exclusion rules")
	assert.Empty(t, cfg.Linters.Exclusions.Paths, "no excluded paths")
	nl := cfg.Linters.Settings.Nolintlint
	assert.True(t, nl.RequireSpecific, "a //nolint names its linter")
	assert.True(t, nl.RequireExplanation, "a //nolint says why")
	assert.False(t, nl.AllowUnused, "a //nolint that silences nothing is reported")
	require.NotNil(t, cfg.Issues.MaxIssuesPerLinter)
	require.NotNil(t, cfg.Issues.MaxSameIssues)
	assert.Zero(t, *cfg.Issues.MaxIssuesPerLinter, "every finding is reported, not the first 50")
	assert.Zero(t, *cfg.Issues.MaxSameIssues, "every finding is reported, not 3 of a kind")
}

// ciStep returns the body of the .ci/run step whose title starts with
// title (up to the next step) and the script's pinned value of variable.
func ciStep(t *testing.T, title, variable string) (body, pinned string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	require.NoError(t, err)
	script := string(data)
	m := regexp.MustCompile(`(?m)^` + variable + `=(\S+)$`).FindStringSubmatch(script)
	require.NotNil(t, m, ".ci/run sets %s", variable)
	start := strings.Index(script, "\nstep \""+title)
	require.NotEqual(t, -1, start, ".ci/run has a step %q", title)
	body = script[start+1:]
	body = body[strings.Index(body, "\n")+1:]
	if end := strings.Index(body, "\nstep \""); end != -1 {
		body = body[:end+1]
	}
	return body, m[1]
}

// goBuildInfo is what `go version -m` prints for a golangci-lint binary
// built by goVersion at module version version.
func goBuildInfo(bin, goVersion, version string) string {
	return bin + ": " + goVersion + "\n" +
		"\tpath\tgithub.com/golangci/golangci-lint/v2/cmd/golangci-lint\n" +
		"\tmod\tgithub.com/golangci/golangci-lint/v2\t" + version + "\th1:w94zf8HAYI7hm3164kwKsvZRuqXvY+YxeFoTbu1OLg8=\n" +
		"\tdep\tgithub.com/kisielk/errcheck\tv1.30.0\th1:x\n"
}

// fakeGo answers `go env GOVERSION` (go1.26.8), `go version -m BIN` (from
// BIN.buildinfo; a file without one is no Go binary) and `go install`
// (puts fake-lint into $GOBIN), logging every call to $LOG.
const fakeGo = `#!/bin/sh
echo "go $*" >> "$LOG"
case "$1" in
env) [ "$2" = GOVERSION ] && echo go1.26.8 ;;
version) [ -f "$3.buildinfo" ] || { echo "$3: could not read Go build info" >&2; exit 1; }
  cat "$3.buildinfo" ;;
install) echo "GOBIN=$GOBIN" >> "$LOG"; cp "$FAKE_LINT" "$GOBIN/golangci-lint" ;;
*) exit 2 ;;
esac
`

// TestCIRunInstallsPinnedGolangciLint runs .ci/run's golangci-lint step
// with a fake go: on a fresh machine it installs the pinned version into
// GOPATH/bin, it reuses a binary of exactly that version built by the
// current Go and reinstalls any other, and a finding fails CI.
func TestCIRunInstallsPinnedGolangciLint(t *testing.T) {
	body, pinned := ciStep(t, "golangci-lint", "GOLANGCI_LINT_VERSION")
	require.Equal(t, "v2.15.0", pinned)
	const module = "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"

	tests := []struct {
		name      string
		present   bool
		buildInfo string // "" = not a Go binary
		findings  bool
		install   bool
	}{
		{name: "fresh machine", install: true},
		{name: "pinned version present", present: true, buildInfo: "go1.26.8 v2.15.0"},
		{name: "other version present", present: true, buildInfo: "go1.26.8 v2.14.0", install: true},
		{name: "pinned version built by another Go", present: true, buildInfo: "go1.25.3 v2.15.0", install: true},
		{name: "not a Go binary", present: true, install: true},
		{name: "findings fail the step", present: true, buildInfo: "go1.26.8 v2.15.0", findings: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "calls")
			tools := filepath.Join(dir, "tools")
			bin := filepath.Join(dir, "gopath", "bin")
			require.NoError(t, os.MkdirAll(tools, 0o755))
			require.NoError(t, os.MkdirAll(bin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(tools, "go"), []byte(fakeGo), 0o755))
			fakeLint := filepath.Join(dir, "fake-lint")
			exit := "0"
			if tt.findings {
				exit = "1"
			}
			require.NoError(t, os.WriteFile(fakeLint, []byte("#!/bin/sh\necho \"golangci-lint $*\" >> \""+log+"\"\nexit "+exit+"\n"), 0o755))
			lint := filepath.Join(bin, "golangci-lint")
			if tt.present {
				require.NoError(t, os.WriteFile(lint, []byte("#!/bin/sh\necho \"stale golangci-lint $*\" >> \""+log+"\"\nexit "+exit+"\n"), 0o755))
				if tt.buildInfo != "" {
					goVersion, version, _ := strings.Cut(tt.buildInfo, " ")
					require.NoError(t, os.WriteFile(lint+".buildinfo", []byte(goBuildInfo(lint, goVersion, version)), 0o644))
				}
			}

			prelude := "set -euo pipefail\nstep() { :; }\nBIN=" + bin + "\nGOLANGCI_LINT_VERSION=" + pinned + "\n"
			cmd := exec.Command("bash", "-c", prelude+body)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + tools + ":/usr/bin:/bin", "LOG=" + log, "FAKE_LINT=" + fakeLint}
			out, err := cmd.CombinedOutput()
			if tt.findings {
				require.Error(t, err, "golangci-lint's findings fail the step")
			} else {
				require.NoError(t, err, string(out))
			}
			data, err := os.ReadFile(log)
			require.NoError(t, err)
			calls := string(data)

			if tt.install {
				assert.Contains(t, calls, "go install "+module+"@v2.15.0\nGOBIN="+bin+"\n", "the pinned version goes into GOPATH/bin")
				assert.Contains(t, calls, "\ngolangci-lint run ./...\n", "the fresh install lints")
				assert.NotContains(t, calls, "stale golangci-lint")
			} else {
				assert.NotContains(t, calls, "go install")
				assert.Contains(t, calls, "\nstale golangci-lint run ./...\n", "the binary already there lints")
			}
		})
	}
}
