//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os/exec"
)

// Main does nothing outside Linux: there is no sandbox init.
func Main() {}

// Probe reports that isolation needs Linux.
func Probe(context.Context) Isolation {
	return Isolation{Mode: None, Reason: "namespaces sandboxing needs Linux"}
}

// Cmd is a sandboxed command.
type Cmd struct {
	*exec.Cmd
}

// Command always fails outside Linux.
func Command(context.Context, Policy, []string) (*Cmd, error) {
	return nil, errors.New("sandbox: namespaces sandboxing needs Linux")
}

// NonDumpable does nothing outside Linux.
func NonDumpable() error { return nil }
