package gitremote

import (
	"bufio"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// DefaultRepo is the repository a command works on when --repo is not
// given: $GITHUB_REPOSITORY (set in Actions), else the checkout's origin
// remote when it points at the GitHub host CogWorks talks to, as gh does.
// It returns "" when neither names one; the caller's usage error says so.
// getenv reads the environment.
func DefaultRepo(getenv func(string) string, workspace string) string {
	if r := getenv("GITHUB_REPOSITORY"); r != "" {
		return r
	}
	u, ok := OriginURL(workspace)
	if !ok {
		return ""
	}
	repo, ok := RepoFromRemote(u, GitHubHost(getenv("COGWORKS_GITHUB_API_URL")))
	if !ok {
		return ""
	}
	return repo.String()
}

// GitHubHost is the web host of the GitHub instance whose API is apiURL:
// github.com for the public API (or none set), the API's host for GitHub
// Enterprise Server (https://ghe.example.com/api/v3).
func GitHubHost(apiURL string) string {
	if apiURL == "" {
		return "github.com"
	}
	u, err := url.Parse(apiURL)
	if err != nil || u.Hostname() == "" {
		return "github.com"
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "api.")
}

// OriginURL reads remote "origin"'s url from the checkout's git config,
// following a worktree's .git file to the repository's common directory.
// It reads the file rather than running git, which need not be installed.
func OriginURL(workspace string) (string, bool) {
	gitDir := filepath.Join(workspace, ".git")
	if data, err := os.ReadFile(gitDir); err == nil { // a worktree: "gitdir: <path>"
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return "", false
		}
		gitDir = strings.TrimSpace(dir)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(workspace, gitDir)
		}
		if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(common))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			gitDir = c
		}
	}
	f, err := os.Open(filepath.Join(gitDir, "config"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	return remoteURL(bufio.NewScanner(f), "origin")
}

// remoteURL finds the url of [remote "<name>"] in git config lines.
func remoteURL(sc *bufio.Scanner, name string) (string, bool) {
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == `[remote "`+name+`"]`
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if in && ok && strings.EqualFold(strings.TrimSpace(key), "url") {
			return strings.TrimSpace(value), true
		}
	}
	return "", false
}

// RepoFromRemote reads owner/name from a git remote URL on host: the
// https, ssh:// and scp-like (git@host:owner/name.git) forms.
func RepoFromRemote(remote, host string) (github.Repo, bool) {
	var h, p string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		h, p = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(remote, ":"); ok && !strings.Contains(at, "/") {
		_, h, _ = strings.Cut(at, "@") // git@github.com
		if h == "" {
			h = at
		}
		p = rest
	} else {
		return github.Repo{}, false
	}
	if !strings.EqualFold(h, host) && !strings.EqualFold(h, "www."+host) {
		return github.Repo{}, false
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	repo, err := github.ParseRepo(p)
	if err != nil {
		return github.Repo{}, false
	}
	return repo, true
}
