// Package action tests the install script of the CogWorks GitHub Action.
package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tarGz returns a release archive holding one executable file.
func tarGz(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(content))}))
	_, err := tw.Write([]byte(content))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// Commits the release tags of releaseServer point at, and one no tag
// points at.
const (
	shaV12      = "1212121212121212121212121212121212121212"
	shaV13      = "1313131313131313131313131313131313131313"
	shaV2       = "2020202020202020202020202020202020202020"
	shaUnknown  = "abcdefabcdefabcdefabcdefabcdefabcdefabcd"
	fakeGoBuild = `#!/bin/sh
# go build ... -o OUT ./cmd/cogworks: writes a cogworks that says where it
# was built from, after checking it runs in the action's source.
[ "$1" = build ] || exit 2
[ -f go.mod ] || { echo "not in the action's source" >&2; exit 1; }
[ "$GOTOOLCHAIN" = auto ] || { echo "GOTOOLCHAIN=$GOTOOLCHAIN" >&2; exit 1; }
out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
printf '#!/bin/sh\necho cogworks built from %s\n' "$(cat marker)" > "$out"
chmod +x "$out"
`
)

// toolsPath returns a PATH of exactly the tools install.sh needs, and a
// fake go (fakeGoBuild) when withGo: the test must not depend on whether
// the machine has Go, and must be able to take it away.
func toolsPath(t *testing.T, withGo bool) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "sh", "curl", "jq", "tar", "gzip", "mkdir", "mktemp", "rm", "awk", "tr", "install", "sha256sum", "cat", "chmod", "printf"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue // sh's builtins cover printf; sha256sum has shasum
		}
		require.NoError(t, os.Symlink(p, filepath.Join(dir, tool)))
	}
	if withGo {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), []byte(fakeGoBuild), 0o755))
	}
	return dir
}

// releaseServer serves GitHub's release download URLs and the releases
// API for cogworks/cogworks with releases v1.2.0, v1.3.0, v1.4.0-rc.1
// (prerelease) and v2.0.0.
func releaseServer(t *testing.T, corrupt bool) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for _, v := range []string{"1.2.0", "1.3.0", "2.0.0"} {
		asset := fmt.Sprintf("cogworks_%s_linux_amd64.tar.gz", v)
		archive := tarGz(t, "cogworks", "#!/bin/sh\necho cogworks "+v+"\n")
		sum := sha256.Sum256(archive)
		if corrupt {
			sum[0] ^= 0xff
		}
		sums := fmt.Sprintf("%s  %s\n%s  cogworks_%s_darwin_arm64.tar.gz\n", hex.EncodeToString(sum[:]), asset, hex.EncodeToString(sum[:]), v)
		mux.HandleFunc("/cogworks/cogworks/releases/download/v"+v+"/"+asset, serveBody(t, archive))
		mux.HandleFunc("/cogworks/cogworks/releases/download/v"+v+"/cogworks_"+v+"_checksums.txt", serveBody(t, []byte(sums)))
	}
	// The tags API, newest first: v1 is a moving major tag at v1.3.0's
	// commit; only the exact release tag counts.
	mux.HandleFunc("/api/repos/cogworks/cogworks/tags", serveBody(t, []byte(`[{"name":"v2.0.0","commit":{"sha":"`+shaV2+`"}},
			{"name":"v1","commit":{"sha":"`+shaV13+`"}},
			{"name":"v1.3.0","commit":{"sha":"`+shaV13+`"}},
			{"name":"v1.2.0","commit":{"sha":"`+shaV12+`"}}]`)))
	mux.HandleFunc("/api/repos/cogworks/cogworks/releases", serveBody(t, []byte(`[{"tag_name":"v2.0.0","draft":false,"prerelease":false},
			{"tag_name":"v1.4.0-rc.1","draft":false,"prerelease":true},
			{"tag_name":"v1.3.0","draft":false,"prerelease":false},
			{"tag_name":"v1.2.0","draft":false,"prerelease":false}]`)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// serveBody answers every request with body. A failed write fails the
// test through Errorf: the handler runs on the server's goroutine, where
// FailNow must not be called.
func serveBody(t *testing.T, body []byte) http.HandlerFunc {
	t.Helper()
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := w.Write(body); err != nil {
			t.Errorf("serve %s: %v", r.URL.Path, err)
		}
	}
}

func TestInstallScript(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	tests := []struct {
		name, ref, version   string
		corrupt              bool
		fromSource, goOnPath bool
		want, errSub         string
	}{
		{name: "exact release tag", ref: "v1.2.0", want: "cogworks 1.2.0"},
		{name: "major tag: newest v1 release, not the prerelease", ref: "v1", want: "cogworks 1.3.0"},
		{name: "version input wins over the ref", ref: "v1", version: "latest", want: "cogworks 2.0.0"},
		{name: "checksum mismatch", ref: "v1.2.0", corrupt: true, errSub: "checksum mismatch for cogworks_1.2.0_linux_amd64.tar.gz"},
		{name: "branch ref without build-from-source", ref: "main", errSub: "'main' (from the uses: ref or the version input) is neither a release tag nor a full commit SHA; use a release"},
		{name: "no matching release", ref: "v3", errSub: "no release of cogworks/cogworks matches 'v3'"},
		// GitHub's hardening guide pins actions to a full commit SHA.
		{name: "SHA of a release downloads that release", ref: shaV13, want: "cogworks 1.3.0"},
		{name: "SHA in upper case", ref: strings.ToUpper(shaV12), want: "cogworks 1.2.0"},
		{name: "SHA no release points at builds that commit's source", ref: shaUnknown, goOnPath: true, want: "cogworks built from the action checkout"},
		{name: "SHA to build without Go says what to do", ref: shaUnknown, errSub: "needs Go on the runner: add actions/setup-go before this step"},
		{name: "build-from-source", ref: "main", fromSource: true, goOnPath: true, want: "cogworks built from the action checkout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := releaseServer(t, tt.corrupt)
			tmp := t.TempDir()
			out := filepath.Join(tmp, "github_output")
			// The action's checkout: a go.mod and a marker the fake go
			// build copies into the binary it writes.
			src := filepath.Join(tmp, "action-src")
			require.NoError(t, os.MkdirAll(src, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module github.com/cogworks/cogworks\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(src, "marker"), []byte("the action checkout"), 0o644))
			script, err := filepath.Abs("install.sh")
			require.NoError(t, err)
			cmd := exec.Command(filepath.Join(toolsPath(t, tt.goOnPath), "bash"), script)
			cmd.Env = []string{"PATH=" + toolsPath(t, tt.goOnPath), "HOME=" + tmp,
				"RUNNER_TEMP=" + tmp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64", "GITHUB_OUTPUT=" + out, "GITHUB_PATH=",
				"GITHUB_SERVER_URL=" + srv.URL, "GITHUB_API_URL=" + srv.URL + "/api",
				"COGWORKS_ACTION_REPOSITORY=cogworks/cogworks", "COGWORKS_ACTION_REF=" + tt.ref, "COGWORKS_ACTION_PATH=" + src,
				"COGWORKS_VERSION=" + tt.version, "COGWORKS_BUILD_FROM_SOURCE=" + strconv.FormatBool(tt.fromSource), "GH_TOKEN="}
			log, err := cmd.CombinedOutput()
			if tt.errSub != "" {
				require.Error(t, err, string(log))
				assert.Contains(t, string(log), tt.errSub)
				assert.NoFileExists(t, filepath.Join(tmp, "cogworks-bin", "cogworks"))
				return
			}
			require.NoError(t, err, string(log))
			bin := filepath.Join(tmp, "cogworks-bin", "cogworks")
			got, err := exec.Command(bin).Output()
			require.NoError(t, err)
			assert.Equal(t, tt.want+"\n", string(got))
			outputs, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Contains(t, string(outputs), "path="+bin+"\n")
		})
	}
}
