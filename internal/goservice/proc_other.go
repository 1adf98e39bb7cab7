//go:build !unix

package goservice

import "os/exec"

// killGroupOnCancel falls back to killing only the go command itself.
func killGroupOnCancel(*exec.Cmd) {}
