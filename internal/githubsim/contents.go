package githubsim

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// lookupPath walks treeSHA to p and returns the entry found there; the root
// is returned as a tree entry when p is empty.
func (rp *repo) lookupPath(treeSHA, p string) (treeEntry, bool) {
	cur := treeEntry{mode: modeTree, sha: treeSHA}
	if p == "" {
		return cur, true
	}
	for _, seg := range strings.Split(p, "/") {
		if cur.mode != modeTree {
			return treeEntry{}, false
		}
		o, ok := rp.objects[cur.sha]
		if !ok {
			return treeEntry{}, false
		}
		found := false
		for _, e := range o.entries {
			if e.name == seg {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	return cur, true
}

func contentType(mode string) string {
	switch mode {
	case modeTree:
		return "dir"
	case modeSymlink:
		return "symlink"
	case modeCommit:
		return "submodule"
	}
	return "file"
}

func (c *call) contentJSON(p, ref string, e treeEntry, withContent bool) map[string]any {
	t := contentType(e.mode)
	self := c.repoURL() + "/contents/" + p + "?ref=" + url.QueryEscape(ref)
	gitURL := c.repoURL() + "/git/" + typeOfMode(e.mode) + "s/" + e.sha
	html := "https://github.com/" + c.repo.fullName() + "/blob/" + ref + "/" + p
	m := map[string]any{
		"type": t, "name": path.Base(p), "path": p, "sha": e.sha, "size": 0,
		"url": self, "git_url": gitURL, "html_url": html, "download_url": nil,
		"_links": map[string]any{"self": self, "git": gitURL, "html": html},
	}
	if o, ok := c.repo.objects[e.sha]; ok && o.kind == "blob" {
		m["size"] = len(o.data)
		m["download_url"] = "https://raw.githubusercontent.com/" + c.repo.fullName() + "/" + ref + "/" + p
		if withContent {
			m["content"] = wrap64(o.data)
			m["encoding"] = "base64"
		}
	}
	return m
}

func (s *Server) getContents(c *call) {
	p := strings.Trim(c.r.PathValue("path"), "/")
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = c.repo.defaultBranch
	}
	sha, ok := c.repo.resolveRef(ref)
	if !ok {
		c.message(http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	e, ok := c.repo.lookupPath(c.repo.commitTree(sha), p)
	if !ok {
		c.notFound()
		return
	}
	media := contentsMedia(c.r.Header.Get("Accept"))
	if e.mode != modeTree {
		c.fileContents(p, ref, e, media)
		return
	}
	out := []any{}
	for _, child := range c.repo.objects[e.sha].entries {
		cp := child.name
		if p != "" {
			cp = p + "/" + child.name
		}
		out = append(out, c.contentJSON(cp, ref, child, false))
	}
	if media == "object" {
		m := c.contentJSON(p, ref, e, false)
		m["entries"] = out
		c.json(http.StatusOK, m)
		return
	}
	c.json(http.StatusOK, out)
}

// maxContentsBlob is the largest file the contents API serves with the
// default media type.
const maxContentsBlob = 1 << 20

// contentsMedia reads the custom media type of a contents request: "raw",
// "object" or "" (the default JSON).
func contentsMedia(accept string) string {
	switch {
	case strings.Contains(accept, "vnd.github.raw"), strings.Contains(accept, "vnd.github.v3.raw"):
		return "raw"
	case strings.Contains(accept, "vnd.github.object"):
		return "object"
	}
	return ""
}

// fileContents answers a contents read of one file in the requested media
// type. As on GitHub, the default media type refuses files over 1 MB
// (403 too_large), the object media type serves them without content
// (encoding "none") and the raw media type serves their bytes.
func (c *call) fileContents(p, ref string, e treeEntry, media string) {
	o, isBlob := c.repo.objects[e.sha]
	large := isBlob && o.kind == "blob" && len(o.data) > maxContentsBlob && c.s.enforced(RuleContentsSize)
	switch {
	case media == "raw" && isBlob && o.kind == "blob":
		c.w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
		c.w.WriteHeader(http.StatusOK)
		_, _ = c.w.Write(o.data)
	case media == "object" && large:
		m := c.contentJSON(p, ref, e, false)
		m["content"], m["encoding"] = "", "none"
		c.json(http.StatusOK, m)
	case large:
		c.json(http.StatusForbidden, map[string]any{
			"message":           "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
			"errors":            []fieldError{{Resource: "Blob", Field: "data", Code: "too_large"}},
			"documentation_url": "https://docs.github.com/rest/repos/contents#get-repository-content", "status": "403",
		})
	default:
		c.json(http.StatusOK, c.contentJSON(p, ref, e, true))
	}
}

type contentsReq struct {
	Message   string  `json:"message"`
	Content   *string `json:"content"`
	SHA       string  `json:"sha"`
	Branch    string  `json:"branch"`
	Author    *sigReq `json:"author"`
	Committer *sigReq `json:"committer"`
}

// prepareContentsWrite validates a contents PUT/DELETE and returns the
// branch and the entry currently at the path (mode "" when absent).
func (c *call) prepareContentsWrite(req *contentsReq, p string, requireExisting bool) (string, treeEntry, bool) {
	if req.Message == "" {
		c.message(http.StatusUnprocessableEntity, "Invalid request.\n\n\"message\" wasn't supplied.")
		return "", treeEntry{}, false
	}
	branch := req.Branch
	if branch == "" {
		branch = c.repo.defaultBranch
	}
	head, ok := c.repo.refs["refs/heads/"+branch]
	if !ok {
		c.message(http.StatusNotFound, "Branch "+branch+" not found")
		return "", treeEntry{}, false
	}
	if c.rulesetRefuses(branch, http.StatusConflict, rulePull) {
		return "", treeEntry{}, false
	}
	cur, exists := c.repo.lookupPath(c.repo.commitTree(head), p)
	switch {
	case exists && cur.mode == modeTree:
		c.message(http.StatusUnprocessableEntity, "Invalid request.\n\n\""+p+"\" is a directory.")
		return "", treeEntry{}, false
	case !exists && requireExisting:
		c.notFound()
		return "", treeEntry{}, false
	case exists && req.SHA == "":
		c.message(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
		return "", treeEntry{}, false
	case exists && req.SHA != cur.sha:
		c.message(http.StatusConflict, p+" does not match "+req.SHA)
		return "", treeEntry{}, false
	}
	if !exists {
		cur = treeEntry{}
	}
	return branch, cur, true
}

func (c *call) contentsCommit(branch, message string, req *contentsReq, write map[string]string, del []string) (string, bool) {
	author := c.sig(req.Author, c.actorSig())
	who := c.sig(req.Committer, author)
	sha, err := c.repo.commitFiles(branch, message, write, del, who)
	if err != nil {
		c.message(http.StatusUnprocessableEntity, err.Error())
		return "", false
	}
	if author != who {
		// commitFiles uses one signature; rewrite with distinct author.
		co := *c.repo.objects[sha].commit
		co.author = author
		sha = c.repo.putCommit(co)
		c.repo.refs["refs/heads/"+branch] = sha
	}
	return sha, true
}

func (s *Server) putContents(c *call) {
	p := strings.Trim(c.r.PathValue("path"), "/")
	var req contentsReq
	if !c.decode(&req) {
		return
	}
	if req.Content == nil {
		c.message(http.StatusUnprocessableEntity, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	data, err := base64.StdEncoding.DecodeString(*req.Content)
	if err != nil {
		c.message(http.StatusUnprocessableEntity, "content is not valid Base64")
		return
	}
	branch, cur, ok := c.prepareContentsWrite(&req, p, false)
	if !ok {
		return
	}
	sha, ok := c.contentsCommit(branch, req.Message, &req, map[string]string{p: string(data)}, nil)
	if !ok {
		return
	}
	e, _ := c.repo.lookupPath(c.repo.commitTree(sha), p)
	status := http.StatusCreated
	if cur.mode != "" {
		status = http.StatusOK
	}
	c.json(status, map[string]any{"content": c.contentJSON(p, branch, e, false), "commit": c.commitJSON(sha)})
}

func (s *Server) deleteContents(c *call) {
	p := strings.Trim(c.r.PathValue("path"), "/")
	var req contentsReq
	if !c.decode(&req) {
		return
	}
	branch, _, ok := c.prepareContentsWrite(&req, p, true)
	if !ok {
		return
	}
	sha, ok := c.contentsCommit(branch, req.Message, &req, nil, []string{p})
	if !ok {
		return
	}
	c.json(http.StatusOK, map[string]any{"content": nil, "commit": c.commitJSON(sha)})
}
