package githubsim

import (
	"archive/tar"
	"compress/gzip"
	"net/http"
	"sort"
	"strings"
)

// codeloadPrefix is where the simulator serves archives; GitHub redirects
// archive requests to codeload.github.com, off the API and its rate limit.
const codeloadPrefix = "/_codeload/"

// getTarball answers GET /repos/{o}/{r}/tarball/{ref} as GitHub does: 302
// to a download URL for the commit.
func (s *Server) getTarball(c *call) {
	ref := c.r.PathValue("ref")
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	sha, ok := c.repo.resolveRef(ref)
	if !ok {
		c.notFound()
		return
	}
	loc := "http://" + c.r.Host + codeloadPrefix + c.repo.fullName() + "/legacy.tar.gz/" + sha
	c.w.Header().Set("Location", loc)
	c.w.WriteHeader(http.StatusFound)
}

// getCodeload serves the gzipped tar of one commit: every entry under
// "<owner>-<repo>-<sha7>/", as GitHub's tarballs are laid out.
func (s *Server) getCodeload(c *call) {
	sha := c.r.PathValue("sha")
	if o, ok := c.repo.objects[sha]; !ok || o.kind != "commit" {
		c.notFound()
		return
	}
	prefix := c.repo.owner + "-" + c.repo.name + "-" + sha[:7] + "/"
	files := c.repo.flatten(c.repo.commitTree(sha))
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	c.w.Header().Set("Content-Type", "application/x-gzip")
	c.w.WriteHeader(http.StatusOK)
	gz := gzip.NewWriter(c.w)
	tw := tar.NewWriter(gz)
	dirs := map[string]bool{}
	for _, p := range paths {
		for i := strings.Index(p, "/"); i >= 0; i = indexFrom(p, "/", i+1) {
			if d := p[:i+1]; !dirs[d] {
				dirs[d] = true
				_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: prefix + d, Mode: 0o775})
			}
		}
		e := files[p]
		data := c.blobText(e.sha)
		h := &tar.Header{Name: prefix + p, Mode: 0o664, Size: int64(len(data)), Typeflag: tar.TypeReg}
		switch e.mode {
		case modeExec:
			h.Mode = 0o775
		case modeSymlink:
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, data, 0
		case modeCommit:
			continue // GitHub's archives leave submodules out
		}
		_ = tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(data))
		}
	}
	_ = tw.Close()
	_ = gz.Close()
}

func indexFrom(s, sub string, from int) int {
	if i := strings.Index(s[from:], sub); i >= 0 {
		return from + i
	}
	return -1
}
