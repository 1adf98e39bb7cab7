package cmdservice

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Fixed paths inside the sandbox: every request's workspace and report
// directory appear at the same place, so what tools record of a path is
// the same for every request and diagnostics map back the same way.
const (
	workspaceMount = "/cogworks/workspace"
	reportMount    = "/cogworks/report"
)

// ReportDirEnv names the directory a test command writes its JUnit XML
// reports to. It exists only for that run and starts empty.
const ReportDirEnv = "COGWORKS_REPORT_DIR"

// runner runs one domain's shell commands, sandboxed unless the operator
// opted out on a host without isolation.
type runner struct {
	iso      sandbox.Isolation
	unsafe   bool
	allowNet bool
	limits   sandbox.Limits
	environ  []string
	// toolDirs are bound read-only (toolchains installed outside /usr,
	// such as a pyenv interpreter's prefix).
	toolDirs []string
	// env are toolchain variables every command gets (RUSTUP_HOME).
	env    []string
	logger *slog.Logger
	// quota bounds what commands add to a workspace (see checkQuota).
	quota int64
}

// command is one shell line of a request.
type command struct {
	line    string
	timeout time.Duration
	network bool
	// reportDir, when set, is the host directory bound at reportMount.
	reportDir string
}

// result is the outcome of a command that ran.
type result struct {
	output   []byte
	exitCode int
}

// run runs c in ws. A non-zero exit is not an error; an expired timeout
// is timeout, and a host without isolation refuses unless the operator
// opted out.
func (r *runner) run(ctx context.Context, ws *workspace, c command) (result, error) {
	if !r.iso.Available() && !r.unsafe {
		uerr := &sandbox.UnavailableError{Reason: r.iso.Reason}
		return result{}, &extserver.Error{Code: domain.CodeToolFailed, Message: uerr.Error(), Cause: uerr}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	out := sandbox.NewOutput(r.limits.OutputBytes)
	env := append(append(sandbox.MinimalEnv(r.environ), "CI=true", "PYTHONDONTWRITEBYTECODE=1", "NO_COLOR=1"), r.env...)
	var cmd *exec.Cmd
	wait := func() error { return cmd.Run() }
	if r.iso.Available() {
		p := sandbox.Policy{
			ReadOnly: existing(r.toolDirs),
			Binds:    []sandbox.Bind{{Source: ws.dir, Target: workspaceMount}},
			Network:  c.network,
			Dir:      workspaceMount,
			Limits:   r.limits,
			Env:      env,
		}
		if c.reportDir != "" {
			p.Binds = append(p.Binds, sandbox.Bind{Source: c.reportDir, Target: reportMount})
			p.Env = append(p.Env, ReportDirEnv+"="+reportMount)
		}
		if p.Limits.CPUSeconds == 0 {
			p.Limits.CPUSeconds = uint64(c.timeout/time.Second) + 1
		}
		sc, err := sandbox.Command(ctx, p, []string{"/bin/sh", "-c", c.line})
		if err != nil {
			return result{}, extserver.Errorf(domain.CodeInternalError, "sandbox %q: %v", c.line, err)
		}
		cmd, wait = sc.Cmd, sc.Run
	} else {
		r.logger.Warn("running a command WITHOUT a sandbox: "+sandbox.UnsafeEnv+"=1 is set and isolation is unavailable", "reason", r.iso.Reason, "command", c.line)
		home, err := os.MkdirTemp("", "cogworks-home-")
		if err != nil {
			return result{}, extserver.Errorf(domain.CodeInternalError, "create throw-away HOME: %v", err)
		}
		defer func() { _ = os.RemoveAll(home) }()
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", c.line)
		cmd.Env = append(env, "HOME="+home)
		if c.reportDir != "" {
			cmd.Env = append(cmd.Env, ReportDirEnv+"="+c.reportDir)
		}
		cmd.Dir = ws.dir
		cmd.WaitDelay = 5 * time.Second
		killGroupOnCancel(cmd)
	}
	cmd.Stdout, cmd.Stderr = out, out
	err := wait()
	res := result{output: out.Bytes()}
	if qerr := checkQuota(ws, c.reportDir, ws.baseBytes, r.quota); qerr != nil {
		return res, qerr
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return res, extserver.Errorf(domain.CodeTimeout, "%q did not finish within %s", c.line, c.timeout)
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
		return res, nil
	case ctx.Err() != nil:
		return res, extserver.Errorf(domain.CodeTimeout, "%q cancelled: %v", c.line, ctx.Err())
	}
	return res, extserver.Errorf(domain.CodeToolFailed, "run %q: %v", c.line, err)
}

// existing keeps the directories that exist (a bind of a missing source
// fails the whole sandbox).
func existing(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if info, err := os.Stat(d); err == nil && info.IsDir() && filepath.IsAbs(d) {
			out = append(out, d)
		}
	}
	return out
}
