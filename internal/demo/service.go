package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/internal/cmdservice"
)

// NodeToolsEnv names the directory whose node_modules holds the
// TypeScript sample's dev dependencies (typescript, @types/node), which
// .ci/run installs; DefaultNodeTools is where it installs them when the
// variable is unset. The sandbox has no network, so the TypeScript
// sample's set-up links this prepared node_modules instead of `npm ci`.
const (
	NodeToolsEnv     = "COGWORKS_NODE_TOOLS"
	defaultNodeTools = ".cache/cogworks/node-tools"
	// NodeToolsInstall is the command that prepares it (as .ci/run does).
	NodeToolsInstall = "npm install --no-audit --no-fund --prefix DIR typescript@5.9.3 @types/node@20.19.43"
)

// NodeTools returns the node tools directory (NodeToolsEnv, else
// ~/.cache/cogworks/node-tools) and whether tsc is installed there.
func NodeTools(getenv func(string) string) (string, error) {
	dir := getenv(NodeToolsEnv)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("node tools: %w", err)
		}
		dir = filepath.Join(home, defaultNodeTools)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "tsc")); err != nil {
		return dir, fmt.Errorf("no typescript in %s (set %s, or run: %s)", dir, NodeToolsEnv, strings.ReplaceAll(NodeToolsInstall, "DIR", dir))
	}
	return dir, nil
}

// Service returns the command domain the sample is served by and the
// service's options: the sample's [[domains]] table resolved against its
// preset, with the TypeScript set-up linking the prepared node_modules
// (bound read-only into the sandbox). It fails, saying what to install,
// when the sample's toolchain is missing on this host.
func (s Sample) Service(ctx context.Context, getenv func(string) string) (cmdservice.Domain, cmdservice.Options, error) {
	cd := s.Domain
	var opts cmdservice.Options
	switch s.Name {
	case "python":
		if !cmdservice.PytestAvailable(ctx, os.Environ()) {
			return cmdservice.Domain{}, opts, errors.New("the python sample needs a python with pytest (Debian: apt-get install python3-pytest)")
		}
	case "typescript":
		if _, err := exec.LookPath("node"); err != nil {
			return cmdservice.Domain{}, opts, fmt.Errorf("the typescript sample needs node and npm: %w", err)
		}
		dir, err := NodeTools(getenv)
		if err != nil {
			return cmdservice.Domain{}, opts, fmt.Errorf("the typescript sample: %w", err)
		}
		cd.Setup = fmt.Sprintf("ln -s '%s/node_modules' node_modules", dir)
		opts.ToolDirs = []string{dir}
	case "rust":
		if _, err := exec.LookPath("cargo"); err != nil {
			return cmdservice.Domain{}, opts, fmt.Errorf("the rust sample needs cargo: %w", err)
		}
	}
	d, err := cmdservice.Resolve(cd)
	if err != nil {
		return cmdservice.Domain{}, opts, fmt.Errorf("sample %s: %w", s.Name, err)
	}
	return d, opts, nil
}

// Serve serves the sample's command domain service on a unix socket at
// sock until stop is called (stop waits for the service to shut down).
func (s Sample) Serve(ctx context.Context, sock string, getenv func(string) string) (stop func() error, err error) {
	d, opts, err := s.Service(ctx, getenv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("sample %s: listen %s: %w", s.Name, sock, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cmdservice.Serve(ctx, ln, d, opts) }()
	return func() error { cancel(); return <-done }, nil
}

// Setup is what one demo run is seeded with: the repository, the issue,
// the scripted LLM and, for a non-Go sample, the sample (whose command
// domain service the demo serves instead of the Go one).
type Setup struct {
	Owner, Name           string
	Files                 map[string]string
	IssueTitle, IssueBody string
	Script                *RuleProvider
	// Sample is the non-Go sample; nil for the Go demo.
	Sample *Sample
}

// NewSetup returns the demo's seed for sample ("" or "go": the Go
// repository, whose plan has one sub-work-item when oneSWI is set).
func NewSetup(sample string, oneSWI bool) (Setup, error) {
	if sample == "" || sample == "go" {
		files, err := Files()
		if err != nil {
			return Setup{}, err
		}
		newScript := Script
		if oneSWI {
			newScript = OneSWIScript
		}
		script, err := newScript()
		if err != nil {
			return Setup{}, err
		}
		return Setup{Owner: Owner, Name: Name, Files: files, IssueTitle: IssueTitle, IssueBody: IssueBody, Script: script}, nil
	}
	s, err := LoadSample(sample)
	if err != nil {
		return Setup{}, err
	}
	return Setup{Owner: s.Owner, Name: s.Repo, Files: s.Files, IssueTitle: s.IssueTitle, IssueBody: s.IssueBody, Script: s.Provider(), Sample: &s}, nil
}

// Epilogue says, for a sample whose second code attempt answered the
// toolchain's report of the first, what was reported; "" otherwise.
func (s Setup) Epilogue() string {
	if s.Sample == nil || s.Script.Answered("code_generation", s.Sample.Feedback) == 0 {
		return ""
	}
	return fmt.Sprintf("\nThe first code attempt failed the real toolchain (%s: %q); the second answered that report and is the PR.\n",
		s.Sample.Tool, s.Sample.Feedback)
}
