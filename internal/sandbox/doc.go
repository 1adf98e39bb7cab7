// Package sandbox runs untrusted commands (the go command over generated
// code, its test binaries, scenario twins) in a throw-away Linux container
// built from unprivileged namespaces: a new user, PID, mount, IPC and UTS
// namespace (and network namespace unless the policy allows the network),
// a root file system assembled from read-only bind mounts of what the
// toolchain needs, a private /tmp, no capabilities, no new privileges and
// resource limits.
//
// The container's first process is the current binary re-executed as the
// sandbox init: every binary (and every test binary) that calls Command
// must call Main first thing in main or TestMain. Main returns at once
// unless the process was started as the init.
//
// See docs/sandbox.md for what each layer stops and what the host needs.
package sandbox
