package cmdservice_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/testkit"
)

// TestPythonPresetRunsACheckoutAsItIs: the python preset tests a
// repository as a new user's checkout is, with nothing installed and no
// network: a src/ layout whose package is not installed, a module linked
// into tests/ (python-semver links docs/advanced/coerce.py there), and an
// addopts naming pytest-cov, pytest-xdist and pytest-timeout, which are
// not installed. Before, the first was "No module named 'calc'", the
// second "No module named 'shared'" (links were not copied) and the third
// "unrecognized arguments: --cov=calc" — on every run.
func TestPythonPresetRunsACheckoutAsItIs(t *testing.T) {
	e2e.RequireToolchain(t)
	cmdservicetest.RequirePytest(t)
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"pyproject.toml":           "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\naddopts = \"--cov=calc --cov-report=term-missing --no-cov-on-fail -n auto --timeout=30\"\n",
		"src/calc/__init__.py":     "def add(a, b):\n    return a + b\n",
		"docs/shared.py":           "K = 3\n",
		"tests/test_calc.py":       "from calc import add\nfrom shared import K\n\n\ndef test_add():\n    assert add(1, 2) == K\n",
		"tests/test_calc_other.py": "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
	})
	require.NoError(t, os.Symlink("../docs/shared.py", filepath.Join(repo, "tests", "shared.py")))
	client := startCustom(t, config.Domain{Name: "python", Preset: "python"}, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 2 * time.Minute}})
	res := simulate(t, client, repo, "")
	require.True(t, res.Passed, res.Output)
	assert.True(t, testNamed(t, res.Tests, "test_add").Passed, "%+v", res.Tests)
	assert.Len(t, res.Tests, 2)

	res = simulate(t, client, repo, "test_add_zero")
	require.True(t, res.Passed, res.Output)
	assert.Len(t, res.Tests, 1, "the filter runs one test: %+v", res.Tests)
}

// TestNodePresetRunsWebAssemblyUnderTheSandboxLimit: vitest 4 parses
// with WebAssembly, and V8 reserves 10 GiB of address space per Wasm
// memory, more than the sandbox's RLIMIT_AS of 8 GiB: every vitest run of
// unjs/ufo died with "WebAssembly.instantiate(): Out of memory" before a
// test ran. The preset turns V8's guard regions off where node knows the
// flag.
func TestNodePresetRunsWebAssemblyUnderTheSandboxLimit(t *testing.T) {
	e2e.RequireToolchain(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("needs npm")
	}
	if err := exec.Command("node", "--disable-wasm-trap-handler", "-e", "0").Run(); err != nil {
		t.Skip("this node does not know --disable-wasm-trap-handler (added in 20.17)")
	}
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "package.json"),
		[]byte(`{"name":"t","version":"1.0.0","scripts":{"test":"node -e \"new WebAssembly.Memory({initial: 1}); console.log('wasm', 'memory', 'made')\""}}`), 0o644))
	client := startCustom(t, config.Domain{Name: "web", Preset: "typescript"}, cmdservice.Options{})
	res := simulate(t, client, repo, "")
	// The marker is printed only when the memory was made (node echoes
	// the source line, with its arguments apart, when it throws).
	assert.Contains(t, res.Output, "wasm memory made", "a Wasm memory fits the sandbox")
	assert.NotContains(t, res.Output, "could not allocate memory")
}
