package githubsim

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawGet sends GET path with an Accept header and returns status and body.
func (f fixture) rawGet(t *testing.T, path, accept string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, f.url+"/api/v3"+path, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestContentsRefusesLargeFilesWithDefaultMediaType(t *testing.T) {
	f := setup(t)
	big := strings.Repeat("x", maxContentsBlob+1)
	f.srv.SeedFiles(full, "main", map[string]string{"big.bin": big, "small.txt": "hi"})
	path := "/repos/" + full + "/contents/big.bin"

	status, body := f.rawGet(t, path, "application/vnd.github+json")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, `"code":"too_large"`)

	status, body = f.rawGet(t, path, "application/vnd.github.raw+json")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, big, body, "the raw media type serves the bytes")

	status, body = f.rawGet(t, path, "application/vnd.github.object+json")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"encoding":"none"`)

	status, _ = f.rawGet(t, "/repos/"+full+"/contents/small.txt", "")
	assert.Equal(t, http.StatusOK, status, "small files are served as before")

	f.srv.Relax(RuleContentsSize)
	status, _ = f.rawGet(t, path, "")
	assert.Equal(t, http.StatusOK, status, "relaxed, the rule is off")
}

func TestContentsObjectMediaTypeListsDirectories(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"docs/a.md": "A"})
	status, body := f.rawGet(t, "/repos/"+full+"/contents/docs", "application/vnd.github.object")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"type":"dir"`)
	assert.Contains(t, body, `"entries":[{`)
}

func TestBlobRawMediaType(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"README.md": "hello\n"})
	status, body := f.rawGet(t, "/repos/"+full+"/git/blobs/"+helloBlob, "application/vnd.github.raw")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "hello\n", body)
}
