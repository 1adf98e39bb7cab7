package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// protectedDirs are human-authored; CogWorks never writes under them
// (docs/spec.md §11).
func protectedDirs() []string {
	return []string{".cogworks/interfaces", ".cogworks/scenarios"}
}

// checkWritePath refuses paths that are empty, absolute, escape the
// repository, or touch a protected directory (including writing an
// ancestor such as ".cogworks" itself as a tree).
func (c *Client) checkWritePath(p string) error {
	if p == "" {
		return &PathError{Path: p, Reason: "empty path"}
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) >= 2 && p[1] == ':') {
		return &PathError{Path: p, Reason: "absolute paths are not allowed"}
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return &PathError{Path: p, Reason: `".." segments are not allowed`}
		}
	}
	clean := strings.ToLower(path.Clean(strings.ReplaceAll(p, `\`, "/")))
	for _, dir := range protectedDirs() {
		if clean == dir || strings.HasPrefix(clean, dir+"/") || strings.HasPrefix(dir, clean+"/") {
			err := c.manifest.Check(OpWriteProtectedPath)
			var denied *DeniedError
			if errors.As(err, &denied) {
				denied.Detail = p
				return denied
			}
			return &DeniedError{Operation: OpWriteProtectedPath, Detail: p}
		}
	}
	return nil
}

// GetBranchSHA returns the commit SHA a branch points at; a missing branch
// yields an error wrapping ErrNotFound.
func (c *Client) GetBranchSHA(ctx context.Context, repo Repo, branch string) (string, error) {
	ref, _, err := c.gh.Git.GetRef(ctx, repo.Owner, repo.Name, "heads/"+branch)
	if err != nil {
		return "", convertError(fmt.Sprintf("get branch %q of %s", branch, repo), err)
	}
	return ref.GetObject().GetSHA(), nil
}

// GetBranchHead returns the commit a branch points at, with its tree SHA,
// in one request (the branches API carries both; the refs API would need a
// second request for the tree). A missing branch yields an error wrapping
// ErrNotFound. Message and Parents are not filled.
func (c *Client) GetBranchHead(ctx context.Context, repo Repo, branch string) (Commit, error) {
	// Repositories.GetBranch bypasses the client's error handling (a 404
	// or a rate limit comes back as a bare status error), so the request
	// goes through Do like every other call.
	req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("repos/%v/%v/branches/%v", repo.Owner, repo.Name, url.PathEscape(branch)), nil)
	if err != nil {
		return Commit{}, fmt.Errorf("get branch %q of %s: %w", branch, repo, err)
	}
	b := new(gh.Branch)
	if _, err := c.gh.Do(ctx, req, b); err != nil {
		return Commit{}, convertError(fmt.Sprintf("get branch %q of %s", branch, repo), err)
	}
	head := Commit{SHA: b.GetCommit().GetSHA(), TreeSHA: b.GetCommit().GetCommit().GetTree().GetSHA()}
	if head.SHA == "" || head.TreeSHA == "" {
		return Commit{}, fmt.Errorf("get branch %q of %s: response lacks the head commit or its tree", branch, repo)
	}
	return head, nil
}

// CreateBranch creates refs/heads/branch at sha; an existing branch yields
// an error wrapping ErrUnprocessable.
func (c *Client) CreateBranch(ctx context.Context, repo Repo, branch, sha string) error {
	defer c.files.forget(repo, branch)
	if err := c.manifest.Check(OpWriteGit); err != nil {
		return err
	}
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: &sha}}
	_, _, err := c.gh.Git.CreateRef(ctx, repo.Owner, repo.Name, ref)
	return convertError(fmt.Sprintf("create branch %q at %s in %s", branch, sha, repo), err)
}

// UpdateBranch moves a branch to sha; force allows non-fast-forward moves.
func (c *Client) UpdateBranch(ctx context.Context, repo Repo, branch, sha string, force bool) error {
	defer c.files.forget(repo, branch)
	if err := c.manifest.Check(OpWriteGit); err != nil {
		return err
	}
	ref := &gh.Reference{Ref: gh.String("refs/heads/" + branch), Object: &gh.GitObject{SHA: &sha}}
	_, _, err := c.gh.Git.UpdateRef(ctx, repo.Owner, repo.Name, ref, force)
	return convertError(fmt.Sprintf("update branch %q to %s in %s", branch, sha, repo), err)
}

// GetCommit returns a git commit object.
func (c *Client) GetCommit(ctx context.Context, repo Repo, sha string) (Commit, error) {
	cm, _, err := c.gh.Git.GetCommit(ctx, repo.Owner, repo.Name, sha)
	if err != nil {
		return Commit{}, convertError(fmt.Sprintf("get commit %s of %s", sha, repo), err)
	}
	return toCommit(cm), nil
}

// GetTree lists a tree's entries, recursively when asked. A tree GitHub
// truncates is an error rather than a silently partial listing. A tree
// read once is answered from memory afterwards: its SHA names its content.
func (c *Client) GetTree(ctx context.Context, repo Repo, treeSHA string, recursive bool) ([]TreeEntry, error) {
	key := treeKey{repo: repo, sha: treeSHA, recursive: recursive}
	if entries, ok := c.trees.get(key); ok {
		return entries, nil
	}
	t, _, err := c.gh.Git.GetTree(ctx, repo.Owner, repo.Name, treeSHA, recursive)
	if err != nil {
		return nil, convertError(fmt.Sprintf("get tree %s of %s", treeSHA, repo), err)
	}
	if t.GetTruncated() {
		return nil, fmt.Errorf("get tree %s of %s: GitHub truncated the listing", treeSHA, repo)
	}
	entries := mapSlice(t.Entries, func(e *gh.TreeEntry) TreeEntry {
		return TreeEntry{Path: e.GetPath(), Mode: e.GetMode(), Type: e.GetType(), SHA: e.GetSHA()}
	})
	c.trees.put(key, entries)
	return entries, nil
}

// CreateTree writes a tree on top of baseTree (empty for a root tree) and
// returns its SHA. Entries with unsafe paths, or paths under
// .cogworks/interfaces/ or .cogworks/scenarios/, are refused before any
// request is sent.
func (c *Client) CreateTree(ctx context.Context, repo Repo, baseTree string, entries []TreeEntry) (string, error) {
	if err := c.manifest.Check(OpWriteGit); err != nil {
		return "", err
	}
	ghEntries := make([]*gh.TreeEntry, 0, len(entries))
	for _, e := range entries {
		if err := c.checkWritePath(e.Path); err != nil {
			return "", fmt.Errorf("create tree in %s: %w", repo, err)
		}
		ge := &gh.TreeEntry{Path: gh.String(e.Path), Mode: gh.String(orDefault(e.Mode, "100644")),
			Type: gh.String(orDefault(e.Type, "blob"))}
		switch {
		case e.Delete:
		case e.Content != nil:
			ge.Content = gh.String(c.redact(*e.Content))
		case e.SHA != "":
			ge.SHA = gh.String(e.SHA)
		default:
			return "", fmt.Errorf("create tree in %s: entry %q: set Content, SHA or Delete", repo, e.Path)
		}
		ghEntries = append(ghEntries, ge)
	}
	t, _, err := c.gh.Git.CreateTree(ctx, repo.Owner, repo.Name, baseTree, ghEntries)
	if err != nil {
		return "", convertError(fmt.Sprintf("create tree in %s", repo), err)
	}
	return t.GetSHA(), nil
}

// CreateCommit writes a commit object for tree with the given parents.
func (c *Client) CreateCommit(ctx context.Context, repo Repo, message, tree string, parents []string) (Commit, error) {
	if err := c.manifest.Check(OpWriteGit); err != nil {
		return Commit{}, err
	}
	message = c.redact(message)
	in := &gh.Commit{Message: &message, Tree: &gh.Tree{SHA: &tree}}
	for _, p := range parents {
		in.Parents = append(in.Parents, &gh.Commit{SHA: gh.String(p)})
	}
	cm, _, err := c.gh.Git.CreateCommit(ctx, repo.Owner, repo.Name, in, nil)
	if err != nil {
		return Commit{}, convertError(fmt.Sprintf("create commit of tree %s in %s", tree, repo), err)
	}
	return toCommit(cm), nil
}

// GetFile returns a file's content at ref through the contents API; a
// missing file yields an error wrapping ErrNotFound. Answers are
// remembered briefly (see fileTTL) and forgotten when this client moves
// the branch.
func (c *Client) GetFile(ctx context.Context, repo Repo, filePath, ref string) ([]byte, error) {
	key := fileKey{repo: repo, ref: ref, path: filePath}
	if b, ok := c.files.get(key); ok {
		return b, nil
	}
	b, err := c.getFile(ctx, repo, filePath, ref)
	if err == nil {
		c.files.put(key, b)
	}
	return b, err
}

func (c *Client) getFile(ctx context.Context, repo Repo, filePath, ref string) ([]byte, error) {
	what := fmt.Sprintf("get file %s@%s in %s", filePath, ref, repo)
	file, err := c.contentsObject(ctx, repo, filePath, ref)
	if err != nil {
		return nil, convertError(what, err)
	}
	if file.Type != "file" {
		return nil, fmt.Errorf("%s: is a %s", what, file.Type)
	}
	if file.Encoding == "none" {
		// Files of 1–100 MB come without content; fetch the blob instead.
		raw, _, err := c.gh.Git.GetBlobRaw(ctx, repo.Owner, repo.Name, file.SHA)
		if err != nil {
			return nil, convertError(what, err)
		}
		return raw, nil
	}
	content, err := file.decode()
	if err != nil {
		return nil, fmt.Errorf("%s: decode content: %w", what, err)
	}
	return content, nil
}

// contentsEntry is a contents API answer in the object media type.
type contentsEntry struct {
	Type     string `json:"type"`
	SHA      string `json:"sha"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

func (e contentsEntry) decode() ([]byte, error) {
	if e.Encoding != "base64" {
		return []byte(e.Content), nil
	}
	return base64.StdEncoding.DecodeString(strings.ReplaceAll(e.Content, "\n", ""))
}

// contentsObject reads one path through the contents API in the object
// media type. The default media type answers 403 too_large for files over
// 1 MB; the object type serves them with encoding "none" (content then
// comes from the blob), and answers directories as one object too.
func (c *Client) contentsObject(ctx context.Context, repo Repo, filePath, ref string) (contentsEntry, error) {
	segs := strings.Split(strings.Trim(filePath, "/"), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := fmt.Sprintf("repos/%s/%s/contents/%s", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), strings.Join(segs, "/"))
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return contentsEntry{}, err
	}
	req.Header.Set("Accept", "application/vnd.github.object+json")
	var out contentsEntry
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return contentsEntry{}, err
	}
	return out, nil
}

// FileCommit is one file PutFile writes, with its commit.
type FileCommit struct {
	// Path is the file's path in the repository.
	Path string
	// Branch is the branch the commit goes on.
	Branch string
	// Message is the commit message.
	Message string
	// Content is the file's new content.
	Content []byte
}

// PutFile creates or updates the file f.Path on f.Branch with a commit.
// Writing the content the file already has is a no-op (no empty commit).
// Unsafe and protected paths are refused before any request is sent.
func (c *Client) PutFile(ctx context.Context, repo Repo, f FileCommit) error {
	filePath, branch, message, content := f.Path, f.Branch, f.Message, f.Content
	defer c.files.forget(repo, branch)
	if err := c.manifest.Check(OpWriteGit); err != nil {
		return err
	}
	what := fmt.Sprintf("put file %s on %s in %s", filePath, branch, repo)
	message, content = c.redact(message), []byte(c.redact(string(content)))
	if err := c.checkWritePath(filePath); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	opts := &gh.RepositoryContentFileOptions{Message: &message, Content: content, Branch: &branch}
	existing, err := c.contentsObject(ctx, repo, filePath, branch)
	switch err = convertError(what, err); {
	case errors.Is(err, ErrNotFound):
		_, _, err = c.gh.Repositories.CreateFile(ctx, repo.Owner, repo.Name, filePath, opts)
		return convertError(what, err)
	case err != nil:
		return err
	case existing.Type != "file":
		return fmt.Errorf("%s: path is a %s", what, existing.Type)
	}
	if current, derr := existing.decode(); derr == nil && existing.Encoding != "none" &&
		bytes.Equal(current, content) {
		return nil
	}
	opts.SHA = &existing.SHA
	_, _, err = c.gh.Repositories.UpdateFile(ctx, repo.Owner, repo.Name, filePath, opts)
	return convertError(what, err)
}

func toCommit(cm *gh.Commit) Commit {
	out := Commit{SHA: cm.GetSHA(), TreeSHA: cm.GetTree().GetSHA(), Message: cm.GetMessage()}
	for _, p := range cm.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
