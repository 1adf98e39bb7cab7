package githubsim

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"
)

func (c *call) repoURL() string { return c.base + "/repos/" + c.repo.fullName() }

func (c *call) refJSON(ref, sha string) map[string]any {
	kind := c.repo.kindOf(sha)
	return map[string]any{
		"ref": ref, "node_id": nodeID("REF", ref), "url": c.repoURL() + "/git/" + ref,
		"object": map[string]any{"type": kind, "sha": sha, "url": c.repoURL() + "/git/" + kind + "s/" + sha},
	}
}

func nodeID(kind string, v any) string {
	b, _ := json.Marshal(v)
	return kind + "_" + base64.RawURLEncoding.EncodeToString(b)
}

func (c *call) sortedRefs(prefix string) []string {
	var out []string
	for ref := range c.repo.refs {
		if strings.HasPrefix(ref, prefix) {
			out = append(out, ref)
		}
	}
	sort.Strings(out)
	return out
}

// matchingRefs serves GET git/matching-refs/{prefix}: every ref under
// refs/{prefix}, possibly none. (GitHub's description has no GET git/refs
// listing; matching-refs replaced it.)
func (s *Server) matchingRefs(c *call) {
	out := []any{}
	for _, ref := range c.sortedRefs("refs/" + c.r.PathValue("ref")) {
		out = append(out, c.refJSON(ref, c.repo.refs[ref]))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) getRef(c *call) {
	full := "refs/" + c.r.PathValue("ref")
	sha, ok := c.repo.refs[full]
	if !ok {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.refJSON(full, sha))
}

func (s *Server) createRef(c *call) {
	var req struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !c.decode(&req) {
		return
	}
	if !strings.HasPrefix(req.Ref, "refs/") || strings.Count(req.Ref, "/") < 2 {
		c.message(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and contain at least two slashes")
		return
	}
	if c.repo.kindOf(req.SHA) == "" {
		c.message(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if _, exists := c.repo.refs[req.Ref]; exists {
		c.message(http.StatusUnprocessableEntity, "Reference already exists")
		return
	}
	if c.rulesetRefuses(req.Ref, http.StatusUnprocessableEntity, ruleCreation) {
		return
	}
	c.repo.refs[req.Ref] = req.SHA
	c.json(http.StatusCreated, c.refJSON(req.Ref, req.SHA))
}

func (s *Server) updateRef(c *call) {
	full := "refs/" + c.r.PathValue("ref")
	var req struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !c.decode(&req) {
		return
	}
	old, ok := c.repo.refs[full]
	if !ok {
		c.message(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	if c.repo.kindOf(req.SHA) == "" {
		c.message(http.StatusUnprocessableEntity, "Object does not exist")
		return
	}
	if !req.Force && !c.repo.isAncestor(old, req.SHA) {
		c.message(http.StatusUnprocessableEntity, "Update is not a fast forward")
		return
	}
	if c.rulesetRefuses(full, http.StatusUnprocessableEntity, ruleUpdate) {
		return
	}
	c.repo.refs[full] = req.SHA
	c.json(http.StatusOK, c.refJSON(full, req.SHA))
}

func (s *Server) deleteRef(c *call) {
	full := "refs/" + c.r.PathValue("ref")
	if _, ok := c.repo.refs[full]; !ok {
		c.message(http.StatusUnprocessableEntity, "Reference does not exist")
		return
	}
	delete(c.repo.refs, full)
	c.w.WriteHeader(http.StatusNoContent)
}

func sigJSON(s signature) map[string]any {
	return map[string]any{"name": s.name, "email": s.email, "date": ts(s.when)}
}

func (c *call) commitJSON(sha string) map[string]any {
	co := c.repo.objects[sha].commit
	parents := []any{}
	for _, p := range co.parents {
		parents = append(parents, map[string]any{
			"sha": p, "url": c.repoURL() + "/git/commits/" + p,
			"html_url": "https://github.com/" + c.repo.fullName() + "/commit/" + p,
		})
	}
	return map[string]any{
		"sha": sha, "node_id": nodeID("C", sha), "url": c.repoURL() + "/git/commits/" + sha,
		"html_url": "https://github.com/" + c.repo.fullName() + "/commit/" + sha,
		"author":   sigJSON(co.author), "committer": sigJSON(co.committer), "message": co.message,
		"tree":         map[string]any{"sha": co.tree, "url": c.repoURL() + "/git/trees/" + co.tree},
		"parents":      parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil},
	}
}

func (s *Server) getCommit(c *call) {
	sha := c.r.PathValue("sha")
	if c.repo.kindOf(sha) != "commit" {
		c.notFound()
		return
	}
	c.json(http.StatusOK, c.commitJSON(sha))
}

type sigReq struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

func (c *call) sig(in *sigReq, fallback signature) signature {
	if in == nil || in.Name == "" {
		return fallback
	}
	out := signature{name: in.Name, email: in.Email, when: c.now}
	if t, err := time.Parse(time.RFC3339, in.Date); err == nil {
		out.when = t
	}
	return out
}

func (c *call) actorSig() signature {
	return signature{name: c.actor, email: noreplyEmail(c.actor), when: c.now}
}

func noreplyEmail(login string) string { return login + "@users.noreply.github.com" }

func (s *Server) createCommit(c *call) {
	var req struct {
		Message   string   `json:"message"`
		Tree      string   `json:"tree"`
		Parents   []string `json:"parents"`
		Author    *sigReq  `json:"author"`
		Committer *sigReq  `json:"committer"`
	}
	if !c.decode(&req) {
		return
	}
	if c.repo.kindOf(req.Tree) != "tree" {
		c.message(http.StatusUnprocessableEntity, "Tree SHA does not exist")
		return
	}
	for _, p := range req.Parents {
		if c.repo.kindOf(p) != "commit" {
			c.message(http.StatusUnprocessableEntity, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	author := c.sig(req.Author, c.actorSig())
	committer := c.sig(req.Committer, author)
	sha := c.repo.putCommit(commitObj{tree: req.Tree, parents: req.Parents, author: author, committer: committer, message: req.Message})
	c.json(http.StatusCreated, c.commitJSON(sha))
}

func apiMode(mode string) string {
	if mode == modeTree {
		return "040000"
	}
	return mode
}

func typeOfMode(mode string) string {
	switch mode {
	case modeTree:
		return "tree"
	case modeCommit:
		return "commit"
	}
	return "blob"
}

func (c *call) treeEntryJSON(path string, e treeEntry) map[string]any {
	t := typeOfMode(e.mode)
	m := map[string]any{"path": path, "mode": apiMode(e.mode), "type": t, "sha": e.sha, "url": c.repoURL() + "/git/" + t + "s/" + e.sha}
	if t == "blob" {
		if o, ok := c.repo.objects[e.sha]; ok {
			m["size"] = len(o.data)
		}
	}
	return m
}

func (c *call) treeJSON(sha string, recursive bool) map[string]any {
	entries := []any{}
	var walk func(treeSHA, prefix string)
	walk = func(treeSHA, prefix string) {
		for _, e := range c.repo.objects[treeSHA].entries {
			entries = append(entries, c.treeEntryJSON(prefix+e.name, e))
			if recursive && e.mode == modeTree {
				walk(e.sha, prefix+e.name+"/")
			}
		}
	}
	walk(sha, "")
	return map[string]any{"sha": sha, "url": c.repoURL() + "/git/trees/" + sha, "tree": entries, "truncated": false}
}

func (s *Server) getTree(c *call) {
	sha := c.r.PathValue("sha")
	if c.repo.kindOf(sha) == "commit" {
		sha = c.repo.commitTree(sha)
	}
	if c.repo.kindOf(sha) != "tree" {
		c.notFound()
		return
	}
	rec := c.r.URL.Query().Get("recursive")
	c.json(http.StatusOK, c.treeJSON(sha, rec != "" && rec != "0" && rec != "false"))
}

func validMode(m string) bool {
	switch m {
	case modeFile, modeExec, modeSymlink, modeCommit, "040000", modeTree:
		return true
	}
	return false
}

func (s *Server) createTree(c *call) {
	var req struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string          `json:"path"`
			Mode    string          `json:"mode"`
			Type    string          `json:"type"`
			SHA     json.RawMessage `json:"sha"`
			Content *string         `json:"content"`
		} `json:"tree"`
	}
	if !c.decode(&req) {
		return
	}
	if req.Tree == nil {
		c.missingField("tree")
		return
	}
	flat := map[string]flatEntry{}
	if req.BaseTree != "" {
		base := req.BaseTree
		if c.repo.kindOf(base) == "commit" {
			base = c.repo.commitTree(base)
		}
		if c.repo.kindOf(base) != "tree" {
			c.invalid(fieldError{Resource: "Tree", Field: "base_tree", Code: "invalid", Message: "base_tree is not a valid tree: " + req.BaseTree})
			return
		}
		flat = c.repo.flatten(base)
	}
	for i, e := range req.Tree {
		p := strings.Trim(e.Path, "/")
		if p == "" || strings.Contains(p, "//") {
			c.invalid(fieldError{Resource: "Tree", Field: "tree.path", Code: "invalid", Message: "tree.path is invalid at index " + itoa(i)})
			return
		}
		mode := e.Mode
		if mode == "" {
			mode = modeFile
		}
		if !validMode(mode) {
			c.invalid(fieldError{Resource: "Tree", Field: "tree.mode", Code: "invalid", Message: "tree.mode " + mode + " is invalid"})
			return
		}
		var sha string
		deleting := len(e.SHA) > 0 && string(e.SHA) == "null" && e.Content == nil
		if !deleting && len(e.SHA) > 0 && string(e.SHA) != "null" {
			if err := json.Unmarshal(e.SHA, &sha); err != nil {
				c.invalid(fieldError{Resource: "Tree", Field: "tree.sha", Code: "invalid"})
				return
			}
		}
		// Remove the path and anything below it before writing the new entry.
		for have := range flat {
			if have == p || strings.HasPrefix(have, p+"/") {
				delete(flat, have)
			}
		}
		switch {
		case deleting:
		case e.Content != nil:
			flat[p] = flatEntry{mode: fileMode(mode), sha: c.repo.putBlob([]byte(*e.Content))}
		case sha != "":
			kind := c.repo.kindOf(sha)
			if kind == "tree" {
				for sub, fe := range c.repo.flatten(sha) {
					flat[p+"/"+sub] = fe
				}
				continue
			}
			if kind == "" && mode != modeCommit {
				c.invalid(fieldError{Resource: "Tree", Field: "tree.sha", Code: "invalid", Message: "tree.sha " + sha + " is not a valid blob"})
				return
			}
			flat[p] = flatEntry{mode: fileMode(mode), sha: sha}
		default:
			c.invalid(fieldError{Resource: "Tree", Field: "tree", Code: "missing_field", Message: "either tree.sha or tree.content must be supplied"})
			return
		}
	}
	sha := c.repo.buildTree(flat)
	c.json(http.StatusCreated, c.treeJSON(sha, false))
}

func fileMode(m string) string {
	if m == "040000" || m == modeTree {
		return modeFile
	}
	return m
}

// wrap64 base64-encodes data with a newline every 60 characters, like GitHub.
func wrap64(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	b.WriteString(enc)
	b.WriteByte('\n')
	return b.String()
}

func (s *Server) getBlob(c *call) {
	sha := c.r.PathValue("sha")
	o, ok := c.repo.objects[sha]
	if !ok || o.kind != "blob" {
		c.notFound()
		return
	}
	if contentsMedia(c.r.Header.Get("Accept")) == "raw" {
		c.w.Header().Set("Content-Type", "application/vnd.github.raw; charset=utf-8")
		c.w.WriteHeader(http.StatusOK)
		_, _ = c.w.Write(o.data)
		return
	}
	c.json(http.StatusOK, map[string]any{
		"sha": sha, "node_id": nodeID("B", sha), "size": len(o.data), "url": c.repoURL() + "/git/blobs/" + sha,
		"content": wrap64(o.data), "encoding": "base64",
	})
}

func (s *Server) createBlob(c *call) {
	var req struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !c.decode(&req) {
		return
	}
	if req.Content == nil {
		c.invalid(fieldError{Resource: "Blob", Field: "content", Code: "missing_field"})
		return
	}
	data := []byte(*req.Content)
	switch req.Encoding {
	case "", "utf-8", "utf8":
	case "base64":
		dec, err := base64.StdEncoding.DecodeString(*req.Content)
		if err != nil {
			c.invalid(fieldError{Resource: "Blob", Field: "content", Code: "invalid", Message: "content is not valid Base64"})
			return
		}
		data = dec
	default:
		c.invalid(fieldError{Resource: "Blob", Field: "encoding", Code: "invalid", Message: "encoding must be utf-8 or base64"})
		return
	}
	sha := c.repo.putBlob(data)
	c.json(http.StatusCreated, map[string]any{"sha": sha, "url": c.repoURL() + "/git/blobs/" + sha})
}

func (c *call) branchJSON(name, sha string) map[string]any {
	co := c.repo.objects[sha].commit
	return map[string]any{
		"name": name, "protected": false,
		"commit": map[string]any{
			"sha": sha, "url": c.repoURL() + "/commits/" + sha,
			"commit": map[string]any{
				"message": co.message, "author": sigJSON(co.author), "committer": sigJSON(co.committer),
				"tree": map[string]any{"sha": co.tree, "url": c.repoURL() + "/git/trees/" + co.tree},
			},
		},
	}
}

func (s *Server) listBranches(c *call) {
	refs := c.sortedRefs("refs/heads/")
	lo, hi := c.paginate(len(refs))
	out := []any{}
	for _, ref := range refs[lo:hi] {
		out = append(out, c.branchJSON(strings.TrimPrefix(ref, "refs/heads/"), c.repo.refs[ref]))
	}
	c.json(http.StatusOK, out)
}

func (s *Server) getBranch(c *call) {
	name := c.r.PathValue("branch")
	sha, ok := c.repo.refs["refs/heads/"+name]
	if !ok {
		c.message(http.StatusNotFound, "Branch not found")
		return
	}
	c.json(http.StatusOK, c.branchJSON(name, sha))
}
