package repotrust

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
)

// EnvTrustRepoConfig is the environment form of serve's
// --trust-repo-config.
const EnvTrustRepoConfig = "COGWORKS_TRUST_REPO_CONFIG"

// RepoTwinsDir holds a repository's digital-twin definitions.
const RepoTwinsDir = ".cogworks/twins"

// executableRepoConfig are the repository files that make CogWorks run a
// program, contact an endpoint or change what the LLM is told. In the
// Action and the CLI the repository's own runner runs them; in serve they
// would run inside the shared server with its credentials at hand.
func executableRepoConfig() []string {
	return []string{domain.DefaultServicesFile, RepoTwinsDir, prompts.OverrideDir}
}

// RepoTrust is serve's allow-list of repositories whose executable
// configuration (see executableRepoConfig) is honoured. Entries are
// "owner/name", "owner/*", "*" or an installation id.
type RepoTrust struct {
	repos         map[string]bool
	owners        map[string]bool
	installations map[int64]bool
	all           bool
}

// ParseRepoTrust reads a comma-separated allow-list.
func ParseRepoTrust(list string) (RepoTrust, error) {
	t := RepoTrust{repos: map[string]bool{}, owners: map[string]bool{}, installations: map[int64]bool{}}
	for _, e := range strings.Split(list, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
		case e == "*":
			t.all = true
		case !strings.Contains(e, "/"):
			id, err := strconv.ParseInt(e, 10, 64)
			if err != nil || id <= 0 {
				return RepoTrust{}, fmt.Errorf("trusted repository config entry %q: want owner/name, owner/*, * or an installation id", e)
			}
			t.installations[id] = true
		case strings.HasSuffix(e, "/*"):
			owner := strings.TrimSuffix(e, "/*")
			if owner == "" || strings.ContainsAny(owner, "/*") {
				return RepoTrust{}, fmt.Errorf("trusted repository config entry %q: want owner/*", e)
			}
			t.owners[strings.ToLower(owner)] = true
		default:
			r, err := github.ParseRepo(e)
			if err != nil {
				return RepoTrust{}, fmt.Errorf("trusted repository config entry %q: %w", e, err)
			}
			t.repos[strings.ToLower(r.String())] = true
		}
	}
	return t, nil
}

// Trusts reports whether the repository (served for installation) may
// use its executable configuration. GitHub names are case-insensitive.
func (t RepoTrust) Trusts(installation int64, repo github.Repo) bool {
	return t.all || t.installations[installation] || t.owners[strings.ToLower(repo.Owner)] || t.repos[strings.ToLower(repo.String())]
}

type repoConfigIgnoredKey struct{}

// WithRepoConfigIgnored marks a step whose repository's executable
// configuration must not be used. It travels in the context because the
// executor factory (Factory.Executors) is shared by every command and its
// signature by many tests; only serve sets it.
func WithRepoConfigIgnored(ctx context.Context, reason string) context.Context {
	return context.WithValue(ctx, repoConfigIgnoredKey{}, reason)
}

// RepoConfigIgnored returns why the repository's executable configuration
// is ignored, or "" when it is honoured.
func RepoConfigIgnored(ctx context.Context) string {
	s, _ := ctx.Value(repoConfigIgnoredKey{}).(string)
	return s
}

// ignoredRepoConfig lists which executable configuration files the
// workspace has that are being ignored.
func ignoredRepoConfig(workspace string) []string {
	var found []string
	for _, p := range executableRepoConfig() {
		if _, err := os.Lstat(filepath.Join(workspace, filepath.FromSlash(p))); err == nil {
			found = append(found, p)
		}
	}
	return found
}

// RepoConfigWarning is the log line and PR/review warning for ignored
// configuration ("" when there is none to ignore).
func RepoConfigWarning(workspace, reason string) string {
	found := ignoredRepoConfig(workspace)
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("repository configuration ignored: %s (%s)", strings.Join(found, ", "), reason)
}

// WarnExecutor adds a warning to every result of a stage, so that the
// work item's status comment says what configuration was ignored
// whichever stage ran.
type WarnExecutor struct {
	Inner   engine.StageExecutor
	Warning string
}

func (w WarnExecutor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	res, err := w.Inner.Execute(ctx, in)
	if err == nil && !slices.Contains(res.Warnings, w.Warning) {
		res.Warnings = append(res.Warnings, w.Warning)
	}
	return res, err
}

// Unwrap returns the wrapped executor (stages.ReviserOf builds revisions from it).
func (w WarnExecutor) Unwrap() engine.StageExecutor { return w.Inner }
