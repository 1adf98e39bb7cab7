package githubsim

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTarballRedirectsToAnArchiveOfTheCommit(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	sha := f.srv.SeedFiles(full, "main", map[string]string{"a.txt": "A\n", "dir/b.sh": "echo\n"})
	u, resp, err := f.client.Repositories.GetArchiveLink(c, owner, name, github.Tarball, &github.RepositoryContentGetOptions{Ref: "main"}, 0)
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, resp.StatusCode)

	got, err := http.Get(u.String())
	require.NoError(t, err)
	defer got.Body.Close()
	require.Equal(t, http.StatusOK, got.StatusCode)
	assert.Equal(t, resp.Rate.Remaining, mustAtoi(t, got.Header.Get("X-RateLimit-Remaining")), "the download is not an API request")
	gz, err := gzip.NewReader(got.Body)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = string(b)
		}
	}
	prefix := owner + "-" + name + "-" + sha[:7] + "/"
	assert.Equal(t, map[string]string{prefix + "a.txt": "A\n", prefix + "dir/b.sh": "echo\n"}, files)
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}
