package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM in the sandbox. The namespaces and the
// dropped capabilities already stop most of them; the filter is the
// second wall, and it shuts the kernel interfaces that are reachable
// without any capability and keep turning up in privilege escalations:
// the keyrings, eBPF, perf events, userfaultfd, io_uring, nested
// namespaces, another process's memory, file handles by inode. Nothing a
// `go build`, `go vet` or `go test` does needs one of them.
var deniedSyscalls = []uintptr{
	unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_ACCT, unix.SYS_SYSLOG, unix.SYS_QUOTACTL,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_SETNS,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
	unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	// Another process's file descriptors (pidfd_getfd: the go command's
	// stdout, to forge test events), their identity (kcmp) and its memory
	// management (process_madvise).
	unix.SYS_PIDFD_GETFD, unix.SYS_KCMP, unix.SYS_PROCESS_MADVISE,
}

// deniedIoctls are the terminal requests that fail with EPERM: pushing
// input into a terminal (TIOCSTI; TIOCLINUX's selection paste on a
// virtual console) runs a command in whatever shell reads it after the
// request, redirecting the console (TIOCCONS), changing the line
// discipline (TIOCSETD, which can load kernel modules) and taking a
// controlling terminal (TIOCSCTTY). The sandbox has its own session and no
// terminal; this is the second wall. The kernel reads the request as a
// 32-bit unsigned int, so the filter compares the low half of args[1].
var deniedIoctls = []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.TIOCCONS, unix.TIOCSETD, unix.TIOCSCTTY}

// newNamespaceFlags are the clone and unshare flags that make a
// namespace: the target may start processes and threads, not new
// namespaces (a nested user namespace would hand it a fresh set of
// capabilities over kernel code that is otherwise out of reach).
const newNamespaceFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// auditArch is the AUDIT_ARCH_* value of the architectures whose system
// call numbers deniedSyscalls holds; 0 for the others, which run without
// the filter (the namespaces and dropped capabilities still apply).
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// Classic BPF opcodes (linux/filter.h).
const (
	bpfLoadAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJumpEq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJumpGE  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJumpSet = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfReturn  = unix.BPF_RET | unix.BPF_K
)

// Offsets into struct seccomp_data: nr, arch, then args[6] (the low half
// of args[0] and args[1] on a little-endian machine, which amd64 and arm64
// are).
const (
	seccompNr     = 0
	seccompArch   = 4
	seccompArg0   = 16
	seccompArg1   = 24
	x32SyscallBit = 0x40000000
)

// seccompFilter is the sandbox's filter program: a foreign architecture
// (i386 or x32 system calls from an amd64 process) kills the process,
// deniedSyscalls, deniedIoctls and new namespaces fail with EPERM, clone3 fails with
// ENOSYS (its flags are behind a pointer a filter cannot read; Go, glibc
// and musl then fall back to clone), everything else is allowed.
func seccompFilter(arch uint32) []unix.SockFilter {
	var prog []unix.SockFilter
	// A jump's true branch goes to its target label; its false branch
	// falls through to the next instruction.
	type jump struct {
		at     int
		target string // "deny", "nosys", "flags", "ioctl" or "kill"
	}
	var jumps []jump
	emit := func(f unix.SockFilter) int {
		prog = append(prog, f)
		return len(prog) - 1
	}
	emit(unix.SockFilter{Code: bpfLoadAbs, K: seccompArch})
	emit(unix.SockFilter{Code: bpfJumpEq, K: arch, Jt: 1})
	emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_KILL_PROCESS})
	emit(unix.SockFilter{Code: bpfLoadAbs, K: seccompNr})
	if arch == unix.AUDIT_ARCH_X86_64 {
		jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpGE, K: x32SyscallBit}), "kill"})
	}
	for _, nr := range deniedSyscalls {
		jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: uint32(nr)}), "deny"})
	}
	jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: unix.SYS_CLONE3}), "nosys"})
	jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: unix.SYS_CLONE}), "flags"})
	jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: unix.SYS_UNSHARE}), "flags"})
	jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: unix.SYS_IOCTL}), "ioctl"})
	labels := map[string]int{}
	emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_ALLOW}) // no jump matched
	labels["ioctl"] = emit(unix.SockFilter{Code: bpfLoadAbs, K: seccompArg1})
	for _, req := range deniedIoctls {
		jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpEq, K: req}), "deny"})
	}
	emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_ALLOW}) // another request
	labels["flags"] = emit(unix.SockFilter{Code: bpfLoadAbs, K: seccompArg0})
	jumps = append(jumps, jump{emit(unix.SockFilter{Code: bpfJumpSet, K: newNamespaceFlags}), "deny"})
	emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_ALLOW}) // no namespace flag
	labels["deny"] = emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
	labels["nosys"] = emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	labels["kill"] = emit(unix.SockFilter{Code: bpfReturn, K: unix.SECCOMP_RET_KILL_PROCESS})
	for _, j := range jumps {
		// Every jump goes forward by fewer than 256 instructions: the
		// program is about 65 long.
		prog[j.at].Jt = uint8(labels[j.target] - j.at - 1)
	}
	return prog
}

// installSeccomp installs the filter on the calling thread, which must
// then execute the target (the filter passes across execve to the new
// program and to everything it starts). no_new_privs must be set.
func installSeccomp() error {
	arch := auditArch()
	if arch == 0 {
		return nil
	}
	prog := seccompFilter(arch)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	return nil
}
