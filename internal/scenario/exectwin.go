package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"
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

	mu    sync.Mutex
	procs map[string]*twinProc
}

type twinProc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // set before done is closed
}

// NewExecTwinRunner returns a runner executing commands in dir, sending the
// twins' output to stdout and stderr (nil discards it).
func NewExecTwinRunner(dir string, stdout, stderr io.Writer) *ExecTwinRunner {
	return &ExecTwinRunner{dir: dir, stdout: stdout, stderr: stderr, stopGrace: 5 * time.Second, procs: map[string]*twinProc{}}
}

func (r *ExecTwinRunner) command(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = r.dir, r.stdout, r.stderr
	return cmd
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
	cmd := r.command(context.WithoutCancel(ctx), t.Start)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start twin %s: %w", t.Name, err)
	}
	p := &twinProc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
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
		if err := r.command(ctx, ready.Command).Run(); err != nil {
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
	if err := r.command(ctx, t.Reset).Run(); err != nil {
		return fmt.Errorf("reset twin %s: %w", t.Name, err)
	}
	return nil
}

// Stop runs the twin's stop command (if any), then interrupts the started
// process, killing it if it has not exited within the grace period.
func (r *ExecTwinRunner) Stop(ctx context.Context, t Twin) error {
	var errs []error
	if len(t.Stop) > 0 {
		if err := r.command(ctx, t.Stop).Run(); err != nil {
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
