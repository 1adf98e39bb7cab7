//go:build !unix

package cmdservice

import "os/exec"

// killGroupOnCancel falls back to killing only the shell itself.
func killGroupOnCancel(*exec.Cmd) {}
