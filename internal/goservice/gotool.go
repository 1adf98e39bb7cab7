package goservice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/beneath"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// runner invokes the Go toolchain, inside the sandbox unless the operator
// opted out on a host without isolation.
type runner struct {
	goBin    string
	iso      sandbox.Isolation
	unsafe   bool
	allowNet bool
	limits   sandbox.Limits
	environ  []string
	cacheDir string
	logger   *slog.Logger

	// workspaceBytes and cacheBytes are the disk quotas of a request's
	// workspace and of a repository's build cache layer (see quota.go).
	workspaceBytes, cacheBytes int64

	once sync.Once
	tc   toolchain
	err  error

	converter test2json // the host's test2json, found on first use
}

// toolchain is what the host's go command reports about itself.
type toolchain struct {
	goBin    string // absolute
	goroot   string
	modcache string
	gocache  string
	settings goSettings
}

// result is the outcome of one toolchain invocation.
type result struct {
	stdout, stderr []byte
	exitCode       int
}

// step describes one go command of a request.
type step struct {
	timeout time.Duration
	env     []string
	// offline steps never download modules (validate_deps checks that
	// they resolve from the cache as they are).
	offline bool
	// scenarios: the step runs held-out scenarios (simulate of the
	// scenario-validation stage), so their directory stays visible. Every
	// other step, code generation's own go test included, has it masked:
	// generated code must not read (and echo into the LLM's feedback) the
	// scenarios that judge it.
	scenarios bool
	// program, when set, runs instead of the go command (a compiled test
	// binary, see testrun.go) in dir (slash-separated, relative to the
	// workspace), with binds added to the policy and its standard output
	// and error both written to output, unbuffered.
	program string
	dir     string
	binds   []sandbox.Bind
	output  *os.File
}

// setup asks the host's go command, once, where its GOROOT and caches are
// and how it is configured (including `go env -w` settings, which the
// sandboxed go command, with a throw-away HOME, would not see).
func (r *runner) setup(ctx context.Context) (toolchain, error) {
	r.once.Do(func() {
		bin, err := exec.LookPath(r.goBin)
		if err != nil {
			r.err = extserver.Errorf(domain.CodeToolNotFound, "go toolchain %q not found: %v", r.goBin, err)
			return
		}
		if bin, err = filepath.Abs(bin); err != nil {
			r.err = extserver.Errorf(domain.CodeToolNotFound, "go toolchain %q: %v", r.goBin, err)
			return
		}
		vars := append([]string{"GOROOT", "GOMODCACHE", "GOCACHE"}, passedGoVars...)
		cmd := exec.CommandContext(ctx, bin, append([]string{"env", "-json"}, vars...)...)
		cmd.Env = append(append([]string(nil), r.environ...), "GOTOOLCHAIN=local")
		out, err := cmd.Output()
		if err != nil {
			r.err = extserver.Errorf(domain.CodeToolNotFound, "go toolchain %s: go env: %v", bin, err)
			return
		}
		var s goSettings
		if err := json.Unmarshal(out, &s); err != nil {
			r.err = extserver.Errorf(domain.CodeToolFailed, "go toolchain %s: decode go env: %v", bin, err)
			return
		}
		r.tc = toolchain{goBin: bin, goroot: s["GOROOT"], modcache: s["GOMODCACHE"], gocache: s["GOCACHE"], settings: s}
	})
	return r.tc, r.err
}

// goCmd runs `go args...` in the workspace with a timeout and the given
// extra environment: first, unless the step is offline, `go mod download`
// with the network (it executes no package code), then the command itself
// with GOPROXY=off, so that it never fetches, and without the network
// unless the repository and the operator both allow it. A non-zero exit
// is not an error; a missing go binary is tool_not_found, an expired
// timeout is timeout, and a host without isolation refuses (unless the
// operator opted out).
func (r *runner) goCmd(ctx context.Context, ws *workspace, st step, args ...string) (result, error) {
	tc, err := r.setup(ctx)
	if err != nil {
		return result{}, err
	}
	if !r.iso.Available() && !r.unsafe {
		uerr := &sandbox.UnavailableError{Reason: r.iso.Reason}
		return result{}, &extserver.Error{Code: domain.CodeToolFailed, Message: uerr.Error(), Cause: uerr}
	}
	cfg, err := config.Load(ws.repo)
	if ws.repo == "" || err != nil {
		cfg = config.Default() // an unreadable config grants nothing
	}
	cgo := "CGO_ENABLED=0"
	if cfg.Sandbox.CGO {
		cgo = "CGO_ENABLED=1"
	}
	base := toolEnv(r.environ, tc.settings, tc.goroot, cgo)
	if !st.offline && st.program == "" && !ws.downloaded && needsDownload(ws.dir) {
		env := appendGoFlags(base, "-mod=mod")
		res, err := r.run(ctx, ws, tc, st, goCommand{args: []string{"mod", "download"}, env: env, network: true, download: true})
		if err != nil {
			return res, err
		}
		if res.exitCode != 0 {
			return res, nil // reported like any failure of the command
		}
		ws.downloaded = true
	}
	env := append(appendGoFlags(base, "-mod=mod"), "GOPROXY=off")
	env = append(env, st.env...)
	return r.run(ctx, ws, tc, st, goCommand{args: args, env: env, network: cfg.Sandbox.Network && r.allowNet})
}

// needsDownload reports whether the workspace's module requires others.
func needsDownload(dir string) bool {
	data, err := beneath.ReadFile(dir, "go.mod", maxHostRead) // a previous step may have planted anything
	return err == nil && strings.Contains(string(data), "require")
}

// goCommand is one go command of a step and what it is given, decided
// per command (the module download before a step gets more than the step
// itself).
type goCommand struct {
	// args are the go command's arguments (the program's, when the step
	// runs a program instead).
	args []string
	// env is the command's whole environment.
	env []string
	// network lets the command reach the network.
	network bool
	// download makes the module cache writable (the download command).
	download bool
}

// run runs one go command, sandboxed or (with the operator's opt-out on a
// host without isolation) as a plain process group.
func (r *runner) run(ctx context.Context, ws *workspace, tc toolchain, st step, gc goCommand) (result, error) {
	env, args := gc.env, gc.args
	if err := r.baselineWorkspace(ws); err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, st.timeout)
	defer cancel()
	out, errOut := sandbox.NewOutput(r.limits.OutputBytes), sandbox.NewOutput(r.limits.OutputBytes)
	prog := tc.goBin
	if st.program != "" {
		prog = st.program
	}
	var cmd *exec.Cmd
	wait := func() error { return cmd.Run() }
	if r.iso.Available() {
		policy, cleanup, err := r.policy(ws, tc, st, gc)
		if err != nil {
			return result{}, err
		}
		defer cleanup()
		sc, err := sandbox.Command(ctx, policy, append([]string{prog}, args...))
		if err != nil {
			return result{}, extserver.Errorf(domain.CodeInternalError, "sandbox go %v: %v", args, err)
		}
		cmd, wait = sc.Cmd, sc.Run
	} else {
		r.logger.Warn("running generated code WITHOUT a sandbox: "+sandbox.UnsafeEnv+"=1 is set and isolation is unavailable", "reason", r.iso.Reason, "command", "go "+strings.Join(args, " "))
		home, err := os.MkdirTemp("", "cogworks-home-")
		if err != nil {
			return result{}, extserver.Errorf(domain.CodeInternalError, "create throw-away HOME: %v", err)
		}
		defer func() { _ = os.RemoveAll(home) }()
		cmd = exec.CommandContext(ctx, prog, args...)
		cmd.Env = append(append(env, "HOME="+home, "TMPDIR="+os.TempDir(), "GOCACHE="+tc.gocache, "GOMODCACHE="+tc.modcache), "GOPATH="+filepath.Join(home, "go"))
		cmd.Dir = filepath.Join(ws.dir, filepath.FromSlash(st.dir))
		cmd.WaitDelay = 5 * time.Second
		killGroupOnCancel(cmd)
	}
	cmd.Stdout, cmd.Stderr = out, errOut
	if st.output != nil {
		cmd.Stdout, cmd.Stderr = st.output, st.output
	}
	err := wait()
	res := result{stdout: out.Bytes(), stderr: errOut.Bytes()}
	if qerr := r.checkWorkspace(ws); qerr != nil {
		return res, qerr
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return res, extserver.Errorf(domain.CodeTimeout, "go %v did not finish within %s", args, st.timeout)
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
		return res, nil
	case errors.Is(err, exec.ErrNotFound):
		return res, extserver.Errorf(domain.CodeToolNotFound, "go toolchain %q not found: %v", r.goBin, err)
	case ctx.Err() != nil:
		return res, extserver.Errorf(domain.CodeTimeout, "go %v cancelled: %v", args, ctx.Err())
	}
	return res, extserver.Errorf(domain.CodeToolFailed, "run go %v: %v", args, err)
}

// gocacheTarget is where the build cache appears inside the sandbox.
const gocacheTarget = "/tmp/gocache"

// workspaceMount is where the request's workspace appears inside the
// sandbox, the same for every request. The go commands run without
// -trimpath, which breaks tests that read their own source through
// runtime.Caller (testify's mock among them); the build cache keys a
// package by its directory without -trimpath, so a fixed path is what
// lets per-request workspaces share it.
const workspaceMount = "/cogworks/workspace"

// policy is what a go command of ws may see: GOROOT and the module cache
// read-only (writable for the download step only), the repository
// read-only with .git and (outside scenario runs) the held-out scenarios
// masked, the workspace writable, and a build cache private to the
// tenant (see cacheKey) over the host's (read-only) one.
func (r *runner) policy(ws *workspace, tc toolchain, st step, gc goCommand) (sandbox.Policy, func(), error) {
	if err := os.MkdirAll(tc.modcache, 0o755); err != nil {
		return sandbox.Policy{}, nil, extserver.Errorf(domain.CodeInternalError, "create module cache %s: %v", tc.modcache, err)
	}
	p := sandbox.Policy{
		ReadOnly: []string{tc.goroot, filepath.Dir(tc.goBin)},
		// Every request's workspace is at the same path (see
		// workspaceMount): without -trimpath that keeps build-cache hits.
		Binds:   append([]sandbox.Bind{{Source: ws.dir, Target: workspaceMount}}, st.binds...),
		Network: gc.network,
		Dir:     path.Join(workspaceMount, st.dir),
		Limits:  r.limits,
	}
	if gc.download {
		p.ReadWrite = append(p.ReadWrite, tc.modcache)
	} else {
		p.ReadOnly = append(p.ReadOnly, tc.modcache)
	}
	if p.Limits.CPUSeconds == 0 {
		p.Limits.CPUSeconds = uint64(st.timeout/time.Second) + 1
	}
	if ws.repo != "" {
		p.ReadOnly = append(p.ReadOnly, ws.repo)
		p.Masked = append(p.Masked, filepath.Join(ws.repo, ".git"))
		if !st.scenarios {
			cfg, err := config.Load(ws.repo)
			if err != nil {
				cfg = config.Default()
			}
			p.Masked = append(p.Masked, filepath.Join(ws.repo, filepath.FromSlash(cfg.Scenarios.Directory)), filepath.Join(ws.repo, ".cogworks", "scenarios"))
		}
	}
	ov, cleanup, err := r.cacheOverlay(ws.tenant, ws.repo, tc.gocache)
	if err != nil {
		return sandbox.Policy{}, nil, err
	}
	p.Overlays = []sandbox.Overlay{ov}
	p.Env = append(gc.env, "GOCACHE="+gocacheTarget, "GOMODCACHE="+tc.modcache)
	return p, func() { cleanup(); r.trimCacheLayer(ov.Upper) }, nil
}

// cacheOverlay gives the tenant's repository its own writable build
// cache layer over the host's build cache, which the sandbox only reads:
// one tenant's code cannot plant entries another tenant's build would
// use. The layer is keyed by cacheKey; a request with neither a tenant
// nor a repository path (a repository sent inline by a caller that names
// no tenant) gets a layer of its own for each step, removed after it.
func (r *runner) cacheOverlay(tenant, repo, hostCache string) (sandbox.Overlay, func(), error) {
	key, shared := cacheKey(tenant, repo)
	dir := filepath.Join(r.cacheDir, key)
	if !shared {
		if err := os.MkdirAll(r.cacheDir, 0o700); err != nil {
			return sandbox.Overlay{}, nil, extserver.Errorf(domain.CodeInternalError, "create build cache %s: %v", r.cacheDir, err)
		}
		d, err := os.MkdirTemp(r.cacheDir, "request-")
		if err != nil {
			return sandbox.Overlay{}, nil, extserver.Errorf(domain.CodeInternalError, "create request build cache in %s: %v", r.cacheDir, err)
		}
		dir = d
		ov, cleanup, err := r.cacheLayer(dir, hostCache)
		if err != nil {
			r.removeWorkDir(dir)
			return ov, nil, err
		}
		return ov, func() { cleanup(); r.removeWorkDir(dir) }, nil
	}
	return r.cacheLayer(dir, hostCache)
}

// cacheKey names the build cache layer of a request: its tenant's (the
// installation and repository CogWorks names, whatever checkout path the
// request has), else its repository path's (a caller that names no
// tenant, as before tenants existed; "tenant\x00" keeps the two key
// spaces apart, a path has no NUL). shared is false when there is nothing
// to key by: every inlined request has the empty path, and keying on it
// gave all of them one layer.
func cacheKey(tenant, repo string) (key string, shared bool) {
	var sum [sha256.Size]byte
	switch {
	case tenant != "":
		sum = sha256.Sum256([]byte("tenant\x00" + tenant))
	case repo != "":
		sum = sha256.Sum256([]byte(repo))
	default:
		return "", false
	}
	return hex.EncodeToString(sum[:12]), true
}

// cacheLayer prepares the upper and a fresh work directory of the layer
// in dir.
func (r *runner) cacheLayer(dir, hostCache string) (sandbox.Overlay, func(), error) {
	upper := filepath.Join(dir, "upper")
	if err := os.MkdirAll(upper, 0o700); err != nil {
		return sandbox.Overlay{}, nil, extserver.Errorf(domain.CodeInternalError, "create build cache %s: %v", upper, err)
	}
	work, err := os.MkdirTemp(dir, "work-")
	if err != nil {
		return sandbox.Overlay{}, nil, extserver.Errorf(domain.CodeInternalError, "create build cache work dir in %s: %v", dir, err)
	}
	ov := sandbox.Overlay{Target: gocacheTarget, Upper: upper, Work: work}
	if info, err := os.Stat(hostCache); err == nil && info.IsDir() && hostCache != "" {
		ov.Lower = hostCache
	}
	return ov, func() { r.removeWorkDir(work) }, nil
}

// removeWorkDir deletes an overlayfs work directory, whose inner "work"
// directory the kernel leaves without permissions.
func (r *runner) removeWorkDir(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil {
		r.logger.Warn("remove build cache work dir", "dir", dir, "error", err)
	}
}
