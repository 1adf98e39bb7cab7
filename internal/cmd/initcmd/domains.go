package initcmd

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/config"
)

// presetOf names the [[domains]] preset that serves a manifest ("" for
// Go, which the built-in Go service serves, and for a manifest no preset
// fits). A package.json is TypeScript when a tsconfig.json lies beside it
// or it names the typescript package, JavaScript otherwise.
func presetOf(workspace, marker string) string {
	switch path.Base(marker) {
	case "pyproject.toml", "setup.py", "requirements.txt":
		return "python"
	case "Cargo.toml":
		return "rust"
	case "pom.xml":
		return "java"
	case "package.json":
		dir := filepath.Join(workspace, filepath.FromSlash(path.Dir(marker)))
		if _, err := os.Stat(filepath.Join(dir, "tsconfig.json")); err == nil {
			return "typescript"
		}
		if raw, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil && strings.Contains(string(raw), `"typescript"`) {
			return "typescript"
		}
		return "javascript"
	}
	return ""
}

// presetNotes say what a preset needs that a checkout may lack.
var presetNotes = map[string]string{
	"python": `# Runs pytest (and ruff or pyflakes when installed) with the first python
# that can import pytest; a src/ directory is put on PYTHONPATH. The sandbox
# has no network: third-party test dependencies must be installed where
# CogWorks runs (a workflow step before it), or by setup with
# setup_network = true (the operator must also allow it).
`,
	"typescript": `# Runs tsc, and vitest or jest, from node_modules: install them before
# CogWorks runs (a workflow step: npm ci), or set setup = "npm ci" with
# setup_network = true (the operator must also set
# COGWORKS_SANDBOX_ALLOW_NETWORK=1). Without node_modules only "npm test"
# runs, and it passes only when it writes a JUnit report.
`,
	"rust": `# Runs cargo clippy (or check) and cargo test offline: fetch the crates
# before CogWorks runs (cargo fetch), or by setup with setup_network = true.
`,
	"java": `# Runs Maven offline with its repository in .m2/repository: fill it before
# CogWorks runs (mvn -B dependency:go-offline), or by setup.
`,
}

func init() { presetNotes["javascript"] = presetNotes["typescript"] }

// DomainTables returns the [[domains]] tables for the languages of
// workspace that a preset of the built-in command service serves (one per
// language; Go is the built-in Go service's), as TOML to append to the
// configuration, and the artifact types they cover. A project in a
// subdirectory gets a commented table: the preset's commands run at the
// repository root, so its commands must first change directory.
func DomainTables(workspace string) (tables string, types []string, err error) {
	var b strings.Builder
	for _, l := range factory.DetectLanguages(workspace) {
		preset := presetOf(workspace, l.Marker)
		if preset == "" {
			continue
		}
		d, err := cmdservice.Resolve(config.Domain{Name: preset, Preset: preset})
		if err != nil {
			return "", nil, fmt.Errorf("init: preset %s: %w", preset, err)
		}
		fmt.Fprintf(&b, "\n# %s, found by %s, served by the built-in command service\n", l.Name, l.Marker)
		b.WriteString("# (docs/domain-services.md, \"Built-in command service\": every key of the\n# commented example above overrides the preset's).\n")
		b.WriteString(presetNotes[preset])
		if dir := path.Dir(l.Marker); dir != "." {
			fmt.Fprintf(&b, "# The project is in %s/ and the commands run at the repository root:\n# uncomment and give test (and typecheck) commands that cd %s first.\n", dir, dir)
			fmt.Fprintf(&b, "# [[domains]]\n# name = %q\n# preset = %q\n", preset, preset)
			continue
		}
		fmt.Fprintf(&b, "[[domains]]\nname = %q\npreset = %q\n", preset, preset)
		types = append(types, d.ArtifactTypes...)
	}
	return b.String(), types, nil
}
