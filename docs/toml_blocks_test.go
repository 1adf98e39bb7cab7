package docs_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
)

// tomlBlocks returns the ```toml blocks of a Markdown file with the line
// each starts on.
func tomlBlocks(text string) map[int]string {
	blocks := map[int]string{}
	start, in := 0, false
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```toml":
			in, start = true, i+1
			b.Reset()
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks[start] = b.String()
		case in:
			b.WriteString(line + "\n")
		}
	}
	return blocks
}

// TestDocumentedTOMLLoads: a user copies the configuration the README and
// docs/ show, so every such block must load with the same strict loaders
// CogWorks uses (unknown keys and bad values are errors): a services
// registration with domain.LoadServices, anything else as
// .cogworks/config.toml. docs/spec.md is the product specification, whose
// examples CogWorks may deviate from (README "Deviations").
func TestDocumentedTOMLLoads(t *testing.T) {
	root := moduleRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	checked := 0
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		if filepath.Base(p) == "spec.md" {
			continue
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for line, block := range tomlBlocks(string(data)) {
			checked++
			where := filepath.Base(p) + ":" + strings.TrimSpace(strings.Split(block, "\n")[0])
			if strings.Contains(block, "[[services]]") {
				path := filepath.Join(t.TempDir(), "services.toml")
				require.NoError(t, os.WriteFile(path, []byte(block), 0o644))
				_, err := domain.LoadServices(path)
				assert.NoError(t, err, "%s (line %d) is not a valid services.toml", where, line)
				continue
			}
			_, err := config.Parse(filepath.Base(p), []byte(block))
			assert.NoError(t, err, "%s (line %d) is not a valid .cogworks/config.toml", where, line)
		}
	}
	assert.GreaterOrEqual(t, checked, 4, "README's configuration and services blocks, deployment.md's and domain-services.md's")
}

// configKeyMention is a config key named in prose as "[section] key" or
// "[section].key", in a code span.
var configKeyMention = regexp.MustCompile("`\\[([a-z_]+)\\](?:\\.| )([a-z_-]+)")

// TestDocumentedConfigKeysExist: every "[section] key" the README and
// docs/ name is a key of .cogworks/config.toml: a field of config.Config,
// whose every key the file `cogworks init` writes shows
// (TestInitConfigShowsEveryKey holds it to that).
func TestDocumentedConfigKeysExist(t *testing.T) {
	keys := configKeys()
	require.True(t, keys["llm.provider"], "the written config shows no [llm] provider: is the parse right?")

	root := moduleRoot(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	found := 0
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		if filepath.Base(p) == "spec.md" {
			continue
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range configKeyMention.FindAllStringSubmatch(line, -1) {
				found++
				assert.True(t, keys[m[1]+"."+m[2]], "%s:%d names [%s] %s, which .cogworks/config.toml has not", filepath.Base(p), i+1, m[1], m[2])
			}
		}
	}
	assert.Greater(t, found, 10, "found too few key mentions: is the pattern right?")
}

// configKeys are "section.key" for every key of .cogworks/config.toml,
// read from config.Config's TOML tags ([gates] is a map: its keys are
// the default's stages). Reflection rather than the file init writes, so
// this package's test binary does not link the whole CLI.
func configKeys() map[string]bool {
	keys := map[string]bool{}
	sections := reflect.TypeOf(config.Config{})
	for i := range sections.NumField() {
		sec := sections.Field(i)
		name := strings.Split(sec.Tag.Get("toml"), ",")[0]
		if sec.Type.Kind() != reflect.Struct {
			for stage := range config.Default().Gates {
				keys[name+"."+stage] = true
			}
			continue
		}
		for j := range sec.Type.NumField() {
			if key := strings.Split(sec.Type.Field(j).Tag.Get("toml"), ",")[0]; key != "" && key != "-" {
				keys[name+"."+key] = true
			}
		}
	}
	return keys
}
