//go:build unix

package cmdservice

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel runs cmd in its own process group and kills the whole
// group when the command's context ends, so that what the shell started
// (test runners, their workers) does not outlive it.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
