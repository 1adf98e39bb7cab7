package action

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml (v2) the release and the
// Action rely on. Decoding is strict: an unknown key (a typo, or a key
// GoReleaser v2 renamed) fails the test, as `goreleaser check` would.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		ID              string   `yaml:"id"`
		IDs             []string `yaml:"ids"`
		NameTemplate    string   `yaml:"name_template"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	DockersV2 []struct {
		ID         string            `yaml:"id"`
		Dockerfile string            `yaml:"dockerfile"`
		IDs        []string          `yaml:"ids"`
		Images     []string          `yaml:"images"`
		Tags       []string          `yaml:"tags"`
		Platforms  []string          `yaml:"platforms"`
		Labels     map[string]string `yaml:"labels"`
	} `yaml:"dockers_v2"`
	Changelog struct {
		Sort    string `yaml:"sort"`
		Filters struct {
			Exclude []string `yaml:"exclude"`
		} `yaml:"filters"`
	} `yaml:"changelog"`
	Release struct {
		Prerelease string `yaml:"prerelease"`
	} `yaml:"release"`
}

func loadGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	require.NoError(t, err)
	var cfg goreleaserConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&cfg))
	return cfg
}

// render expands the template fields GoReleaser fills for an artifact.
func render(tmpl string, vars map[string]string) string {
	return regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`).ReplaceAllStringFunc(tmpl, func(m string) string {
		name := regexp.MustCompile(`\w+`).FindString(m)
		return vars[name]
	})
}

// TestGoreleaserDryRun checks what `goreleaser check` and a snapshot
// release would establish for this project without running GoReleaser:
// the build matrix, archive and checksum names (which action/install.sh
// downloads), and the container image.
func TestGoreleaserDryRun(t *testing.T) {
	cfg := loadGoreleaser(t)
	assert.Equal(t, 2, cfg.Version)
	assert.Equal(t, "cogworks", cfg.ProjectName)

	var targets []string
	builds := map[string]bool{}
	for _, b := range cfg.Builds {
		builds[b.ID] = true
		info, err := os.Stat(filepath.Join("..", b.Main, "main.go"))
		require.NoError(t, err, "build %s: main package %s", b.ID, b.Main)
		assert.False(t, info.IsDir())
		assert.Contains(t, b.Env, "CGO_ENABLED=0", "build %s: static binaries for distroless", b.ID)
		assert.ElementsMatch(t, []string{"linux", "darwin", "windows"}, b.Goos, b.ID)
		assert.ElementsMatch(t, []string{"amd64", "arm64"}, b.Goarch, b.ID)
		for _, goos := range b.Goos {
			for _, arch := range b.Goarch {
				targets = append(targets, b.Binary+"/"+goos+"/"+arch)
			}
		}
	}
	assert.Len(t, targets, 12, "cogworks and cogworks-domain-go × 3 OS × 2 architectures")
	require.True(t, builds["cogworks"] && builds["cogworks-domain-go"])
	main, err := os.ReadFile(filepath.Join("..", "cmd", "cogworks", "main.go"))
	require.NoError(t, err)
	assert.Contains(t, string(main), "var version = ", "ldflags -X main.version has a target")
	assert.Contains(t, strings.Join(cfg.Builds[0].Ldflags, " "), "-X main.version={{ .Version }}")

	require.Len(t, cfg.Archives, 1)
	ar := cfg.Archives[0]
	assert.ElementsMatch(t, []string{"cogworks", "cogworks-domain-go"}, ar.IDs)
	assert.Equal(t, []string{"tar.gz"}, ar.Formats)
	require.Len(t, ar.FormatOverrides, 1)
	assert.Equal(t, "windows", ar.FormatOverrides[0].Goos)
	assert.Equal(t, []string{"zip"}, ar.FormatOverrides[0].Formats)
	for _, f := range ar.Files {
		assert.FileExists(t, filepath.Join("..", f))
	}

	// The names install.sh builds must be the names GoReleaser publishes.
	script, err := os.ReadFile("install.sh")
	require.NoError(t, err)
	vars := map[string]string{"ProjectName": cfg.ProjectName, "Version": "1.4.2", "Os": "linux", "Arch": "arm64"}
	assert.Equal(t, "cogworks_1.4.2_linux_arm64", render(ar.NameTemplate, vars))
	assert.Contains(t, string(script), `asset="cogworks_${version}_${os}_${arch}.${ext}"`)
	assert.Equal(t, "cogworks_1.4.2_checksums.txt", render(cfg.Checksum.NameTemplate, vars))
	assert.Contains(t, string(script), `sums="cogworks_${version}_checksums.txt"`)
	assert.Equal(t, "sha256", cfg.Checksum.Algorithm)

	require.Len(t, cfg.DockersV2, 1)
	img := cfg.DockersV2[0]
	assert.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, img.Platforms)
	for _, id := range img.IDs {
		assert.True(t, builds[id], "image uses build %s", id)
	}
	assert.NotEmpty(t, img.Images)
	assert.Contains(t, img.Tags, "{{ .Version }}")
	assert.FileExists(t, filepath.Join("..", img.Dockerfile))
}

// TestDockerfilesDistrolessNonRoot checks both images run as a non-root
// user on a distroless static base.
func TestDockerfilesDistrolessNonRoot(t *testing.T) {
	for _, name := range []string{"Dockerfile", "Dockerfile.release"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", name))
			require.NoError(t, err)
			var froms, users []string
			for _, line := range strings.Split(string(data), "\n") {
				f := strings.Fields(line)
				if len(f) >= 2 && f[0] == "FROM" {
					froms = append(froms, f[1])
				}
				if len(f) >= 2 && f[0] == "USER" {
					users = append(users, f[1])
				}
			}
			require.NotEmpty(t, froms)
			assert.Regexp(t, `^gcr\.io/distroless/static-debian\d+:nonroot$`, froms[len(froms)-1], "final stage base")
			require.NotEmpty(t, users)
			assert.NotRegexp(t, `^(root|0)(:|$)`, users[len(users)-1])
			assert.Contains(t, string(data), "/usr/local/bin/cogworks")
		})
	}
}
