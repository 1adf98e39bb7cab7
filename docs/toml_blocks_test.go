package docs_test

import (
	"os"
	"path/filepath"
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
