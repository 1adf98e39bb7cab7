package gitremote_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/gitremote"
)

func TestRepoFromRemote(t *testing.T) {
	tests := []struct {
		remote, host, want string
	}{
		{"https://github.com/acme/widgets.git", "github.com", "acme/widgets"},
		{"https://github.com/acme/widgets", "github.com", "acme/widgets"},
		{"https://github.com/acme/widgets/", "github.com", "acme/widgets"},
		{"https://x-access-token:secret@github.com/acme/widgets.git", "github.com", "acme/widgets"},
		{"https://www.github.com/acme/widgets.git", "github.com", "acme/widgets"},
		{"git@github.com:acme/widgets.git", "github.com", "acme/widgets"},
		{"github.com:acme/widgets", "github.com", "acme/widgets"},
		{"ssh://git@github.com/acme/widgets.git", "github.com", "acme/widgets"},
		{"ssh://git@github.com:22/acme/widgets.git", "github.com", "acme/widgets"},
		{"git@ghe.example.com:acme/widgets.git", "ghe.example.com", "acme/widgets"},
		// Not the GitHub CogWorks talks to, or not a repository.
		{"git@gitlab.com:acme/widgets.git", "github.com", ""},
		{"https://github.com/acme/widgets.git", "ghe.example.com", ""},
		{"https://github.com/acme", "github.com", ""},
		{"https://github.com/acme/widgets/tree/main", "github.com", ""},
		{"/srv/git/widgets.git", "github.com", ""},
		{"../widgets", "github.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.remote+" on "+tt.host, func(t *testing.T) {
			repo, ok := gitremote.RepoFromRemote(tt.remote, tt.host)
			assert.Equal(t, tt.want != "", ok)
			if ok {
				assert.Equal(t, tt.want, repo.String())
			}
		})
	}
}

func TestGitHubHost(t *testing.T) {
	assert.Equal(t, "github.com", gitremote.GitHubHost(""))
	assert.Equal(t, "github.com", gitremote.GitHubHost("https://api.github.com"))
	assert.Equal(t, "ghe.example.com", gitremote.GitHubHost("https://ghe.example.com/api/v3"))
	assert.Equal(t, "127.0.0.1", gitremote.GitHubHost("http://127.0.0.1:8080"))
}

// writeGitConfig makes dir a checkout whose git config has the given text.
func writeGitConfig(t *testing.T, dir, config string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644))
}

func TestOriginURLReadsTheCheckoutsGitConfig(t *testing.T) {
	const config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@github.com:other/fork.git\n[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	main := t.TempDir()
	writeGitConfig(t, main, config)
	u, ok := gitremote.OriginURL(main)
	require.True(t, ok)
	assert.Equal(t, "git@github.com:acme/widgets.git", u)

	// A worktree's .git is a file naming its git dir, whose commondir
	// leads to the repository's config.
	wt := t.TempDir()
	gitdir := filepath.Join(main, ".git", "worktrees", "wt")
	require.NoError(t, os.MkdirAll(gitdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644))
	u, ok = gitremote.OriginURL(wt)
	require.True(t, ok)
	assert.Equal(t, "git@github.com:acme/widgets.git", u)

	_, ok = gitremote.OriginURL(t.TempDir())
	assert.False(t, ok, "not a checkout")
	noOrigin := t.TempDir()
	writeGitConfig(t, noOrigin, "[remote \"upstream\"]\n\turl = git@github.com:other/fork.git\n")
	_, ok = gitremote.OriginURL(noOrigin)
	assert.False(t, ok, "no origin remote")
}
