package goservice

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"time"

	"github.com/cogworks/cogworks/domain"
)

// runner invokes the Go toolchain.
type runner struct {
	goBin string
}

// result is the outcome of one toolchain invocation.
type result struct {
	stdout, stderr []byte
	exitCode       int
}

// goCmd runs `go args...` in dir with a timeout and the given extra
// environment. A non-zero exit is not an error; a missing go binary is
// tool_not_found and an expired timeout is timeout.
func (r runner) goCmd(ctx context.Context, dir string, timeout time.Duration, env []string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(toolEnv(os.Environ()), "GOTOOLCHAIN=local", "GOWORK=off")
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 5 * time.Second
	killGroupOnCancel(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return res, failf(domain.CodeTimeout, "go %v did not finish within %s", args, timeout)
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
		return res, nil
	case errors.Is(err, exec.ErrNotFound):
		return res, failf(domain.CodeToolNotFound, "go toolchain %q not found: %v", r.goBin, err)
	case ctx.Err() != nil:
		return res, failf(domain.CodeTimeout, "go %v cancelled: %v", args, ctx.Err())
	}
	return res, failf(domain.CodeToolFailed, "run go %v: %v", args, err)
}
