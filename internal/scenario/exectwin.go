package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// ExecTwinRunner runs twins as local processes. Every command is executed
// directly from its argv (never through a shell) with Dir as working
// directory. Twin commands come from human-authored repository
// configuration, never from issue text or LLM output.
//
// It is safe for concurrent use; each twin name has at most one process.
type ExecTwinRunner struct {
	dir       string
	stdout    io.Writer
	stderr    io.Writer
	stopGrace time.Duration
	// confine, when set, runs every command in a sandbox.
	confine *TwinSandbox

	mu    sync.Mutex
	procs map[string]*twinProc
}

type twinProc struct {
	cmd  *twinCmd
	done chan struct{}
	err  error // set before done is closed
}

// TwinSandbox confines twin commands: twins are human-authored, but they
// run the repository's code next to generated code, so they get what the
// domain service's go commands get — the repository read-only with .git
// masked, a private /tmp and HOME, an allow-listed environment, their own
// PID namespace (Stop kills everything a twin started) and no network
// unless allowed.
type TwinSandbox struct {
	// Isolation is what sandbox.Probe found.
	Isolation sandbox.Isolation
	// Unsafe runs twins unisolated where isolation is unavailable
	// (sandbox.UnsafeEnv); otherwise they are refused.
	Unsafe bool
	// Network shares the host's network (the repository's [sandbox]
	// network = true with the operator's consent). Tests that reach a twin
	// over TCP need it: the domain service's go test then runs in the
	// host's network too; without it each sandbox has its own loopback.
	Network bool
	// Environ is the environment twins' is drawn from: PATH only.
	Environ []string
	// Warn receives the warning of every unisolated run.
	Warn func(msg string)
}

// Confine makes r run every command under sb and returns r.
func (r *ExecTwinRunner) Confine(sb TwinSandbox) *ExecTwinRunner {
	r.confine = &sb
	return r
}

// twinCmd is a twin command, sandboxed or not; wait reaps it (and the
// sandbox's host-side resources).
type twinCmd struct {
	*exec.Cmd
	wait func() error
}

func (c *twinCmd) run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.wait()
}

// NewExecTwinRunner returns a runner executing commands in dir, sending the
// twins' output to stdout and stderr (nil discards it).
func NewExecTwinRunner(dir string, stdout, stderr io.Writer) *ExecTwinRunner {
	return &ExecTwinRunner{dir: dir, stdout: stdout, stderr: stderr, stopGrace: 5 * time.Second, procs: map[string]*twinProc{}}
}

func (r *ExecTwinRunner) command(ctx context.Context, argv []string) (*twinCmd, error) {
	sb := r.confine
	if sb != nil && sb.Isolation.Available() {
		dir, err := filepath.Abs(r.dir)
		if err != nil {
			return nil, fmt.Errorf("twin directory %s: %w", r.dir, err)
		}
		policy := sandbox.Policy{
			ReadOnly: []string{dir},
			Masked:   []string{filepath.Join(dir, ".git")},
			Network:  sb.Network,
			Env:      sandbox.MinimalEnv(sb.Environ),
			Dir:      dir,
		}
		sc, err := sandbox.Command(ctx, policy, argv)
		if err != nil {
			return nil, err
		}
		sc.Stdout, sc.Stderr = r.stdout, r.stderr
		return &twinCmd{Cmd: sc.Cmd, wait: sc.Wait}, nil
	}
	if sb != nil && !sb.Unsafe {
		return nil, &sandbox.UnavailableError{Reason: sb.Isolation.Reason}
	}
	if sb != nil && sb.Warn != nil {
		sb.Warn(fmt.Sprintf("running twin command %q WITHOUT a sandbox (%s=1): %s", argv[0], sandbox.UnsafeEnv, sb.Isolation.Reason))
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.dir, r.stdout, r.stderr
	return &twinCmd{Cmd: cmd, wait: cmd.Wait}, nil
}

// Start launches the twin's start command in the background. The process
// lives until Stop, independently of ctx.
func (r *ExecTwinRunner) Start(ctx context.Context, t Twin) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("start twin %s: %w", t.Name, err)
	}
	if len(t.Start) == 0 {
		return fmt.Errorf("start twin %s: no start command", t.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.procs[t.Name]; ok && !p.exited() {
		return fmt.Errorf("start twin %s: already running (pid %d)", t.Name, p.cmd.Process.Pid)
	}
	cmd, err := r.command(context.WithoutCancel(ctx), t.Start)
	if err != nil {
		return fmt.Errorf("start twin %s: %w", t.Name, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start twin %s: %w", t.Name, err)
	}
	p := &twinProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.wait()
		close(p.done)
	}()
	r.procs[t.Name] = p
	return nil
}

func (p *twinProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (r *ExecTwinRunner) proc(name string) *twinProc {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.procs[name]
}

// Ready polls the twin's readiness probe until it succeeds, the twin's
// process exits, the probe timeout passes or ctx is done.
func (r *ExecTwinRunner) Ready(ctx context.Context, t Twin) error {
	p := r.proc(t.Name)
	if p == nil {
		return fmt.Errorf("twin %s readiness: not started", t.Name)
	}
	timeout, interval := t.Ready.Timeout, t.Ready.Interval
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	if interval <= 0 {
		interval = DefaultReadyInterval
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for {
		if p.exited() {
			return fmt.Errorf("twin %s exited before becoming ready: %v", t.Name, p.err)
		}
		lastErr = r.probe(ctx, t.Ready)
		if lastErr == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("twin %s not ready after %s: %w", t.Name, timeout, lastErr)
		case <-p.done:
		case <-time.After(interval):
		}
	}
}

func (r *ExecTwinRunner) probe(ctx context.Context, ready Readiness) error {
	switch {
	case len(ready.Command) > 0:
		cmd, err := r.command(ctx, ready.Command)
		if err == nil {
			err = cmd.run()
		}
		if err != nil {
			return fmt.Errorf("probe %q: %w", ready.Command[0], err)
		}
	case ready.TCP != "":
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", ready.TCP)
		if err != nil {
			return fmt.Errorf("probe tcp %s: %w", ready.TCP, err)
		}
		return conn.Close()
	}
	return nil
}

// Reset runs the twin's reset command; a twin without one is restarted
// (stopped, started and probed again) so the next trajectory sees fresh state.
func (r *ExecTwinRunner) Reset(ctx context.Context, t Twin) error {
	if len(t.Reset) == 0 {
		if err := r.Stop(ctx, t); err != nil {
			return fmt.Errorf("reset twin %s: %w", t.Name, err)
		}
		if err := r.Start(ctx, t); err != nil {
			return fmt.Errorf("reset twin %s: %w", t.Name, err)
		}
		return r.Ready(ctx, t)
	}
	cmd, err := r.command(ctx, t.Reset)
	if err == nil {
		err = cmd.run()
	}
	if err != nil {
		return fmt.Errorf("reset twin %s: %w", t.Name, err)
	}
	return nil
}

// Stop runs the twin's stop command (if any), then interrupts the started
// process, killing it if it has not exited within the grace period.
func (r *ExecTwinRunner) Stop(ctx context.Context, t Twin) error {
	var errs []error
	if len(t.Stop) > 0 {
		cmd, err := r.command(ctx, t.Stop)
		if err == nil {
			err = cmd.run()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("stop command: %w", err))
		}
	}
	r.mu.Lock()
	p := r.procs[t.Name]
	delete(r.procs, t.Name)
	r.mu.Unlock()
	if p != nil && !p.exited() {
		_ = p.cmd.Process.Signal(os.Interrupt) // unsupported on some platforms; Kill follows
		select {
		case <-p.done:
		case <-time.After(r.stopGrace):
		case <-ctx.Done():
		}
		if !p.exited() {
			if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, fmt.Errorf("kill: %w", err))
			}
			<-p.done
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stop twin %s: %w", t.Name, err)
	}
	return nil
}
