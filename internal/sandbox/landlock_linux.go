package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockRulesetAttr is struct landlock_ruleset_attr up to ABI 6's scoped
// field: the kernel accepts the size it knows, so later fields need not
// be sent.
type landlockRulesetAttr struct {
	handledAccessFS, handledAccessNet, scoped uint64
}

// landlockABI returns the Landlock ABI the kernel offers to this process,
// 0 when it offers none (too old, disabled at boot, or denied by a
// container's seccomp profile).
func landlockABI() int {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(abi)
}

// landlockScope restricts the calling thread, and what it executes, to a
// Landlock domain that handles no file or network access but is scoped:
// it cannot signal a process outside the domain (the init, the domain
// service, the cogworks process, whatever their process group), nor
// connect to an abstract unix socket created outside it. Every Landlock
// domain also refuses ptrace-class access (ptrace, /proc/<pid>/fd and
// mem, pidfd_getfd) to processes outside it. It does nothing where the
// kernel's ABI is below 6: setsid and the PID namespace then keep the
// signals in. no_new_privs must be set.
func landlockScope() error {
	if landlockABI() < landlockScopeABI {
		return nil
	}
	attr := landlockRulesetAttr{scoped: unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict self: %w", errno)
	}
	return nil
}
