//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// runFilter interprets the classic BPF program the way the kernel runs a
// seccomp filter over struct seccomp_data (little-endian), supporting the
// instructions seccompFilter emits. It fails the test on anything else.
func runFilter(t *testing.T, prog []unix.SockFilter, arch uint32, nr int32, args [6]uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLoadAbs:
			require.LessOrEqual(t, int(in.K)+4, len(data), "load beyond seccomp_data at %d", pc)
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfJumpEq, bpfJumpGE, bpfJumpSet:
			var taken bool
			switch in.Code {
			case bpfJumpEq:
				taken = acc == in.K
			case bpfJumpGE:
				taken = acc >= in.K
			default:
				taken = acc&in.K != 0
			}
			if taken {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfReturn:
			return in.K
		default:
			t.Fatalf("unexpected BPF instruction %#x at %d", in.Code, pc)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

func TestSeccompFilter(t *testing.T) {
	const arch = unix.AUDIT_ARCH_X86_64
	eperm := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	enosys := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))
	tests := []struct {
		name string
		arch uint32
		nr   int32
		args [6]uint64
		want uint32
	}{
		{"read is allowed", arch, unix.SYS_READ, [6]uint64{0}, unix.SECCOMP_RET_ALLOW},
		{"a foreign architecture kills", unix.AUDIT_ARCH_I386, 3, [6]uint64{}, unix.SECCOMP_RET_KILL_PROCESS},
		{"x32 system calls kill", arch, x32SyscallBit | unix.SYS_READ, [6]uint64{}, unix.SECCOMP_RET_KILL_PROCESS},
		{"bpf is denied", arch, unix.SYS_BPF, [6]uint64{}, eperm},
		{"ptrace is denied", arch, unix.SYS_PTRACE, [6]uint64{}, eperm},
		{"pidfd_getfd is denied", arch, unix.SYS_PIDFD_GETFD, [6]uint64{}, eperm},
		{"kcmp is denied", arch, unix.SYS_KCMP, [6]uint64{}, eperm},
		{"process_madvise is denied", arch, unix.SYS_PROCESS_MADVISE, [6]uint64{}, eperm},
		{"clone3 falls back", arch, unix.SYS_CLONE3, [6]uint64{}, enosys},
		{"clone of a thread is allowed", arch, unix.SYS_CLONE, [6]uint64{unix.CLONE_VM | unix.CLONE_THREAD}, unix.SECCOMP_RET_ALLOW},
		{"clone of a user namespace is denied", arch, unix.SYS_CLONE, [6]uint64{unix.CLONE_NEWUSER}, eperm},
		{"unshare of a mount namespace is denied", arch, unix.SYS_UNSHARE, [6]uint64{unix.CLONE_NEWNS}, eperm},
		{"ioctl TIOCSTI is denied", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCSTI with the high half set is denied (the kernel reads an int)", arch, unix.SYS_IOCTL, [6]uint64{0, 0xffffffff00000000 | unix.TIOCSTI}, eperm},
		{"ioctl TIOCLINUX is denied", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCLINUX}, eperm},
		{"ioctl TIOCCONS is denied", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCCONS}, eperm},
		{"ioctl TIOCSETD is denied", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSETD}, eperm},
		{"ioctl TIOCSCTTY is denied", arch, unix.SYS_IOCTL, [6]uint64{0, unix.TIOCSCTTY}, eperm},
		{"ioctl TCGETS is allowed (isatty)", arch, unix.SYS_IOCTL, [6]uint64{1, unix.TCGETS}, unix.SECCOMP_RET_ALLOW},
		{"ioctl TIOCINQ is allowed", arch, unix.SYS_IOCTL, [6]uint64{3, unix.TIOCINQ}, unix.SECCOMP_RET_ALLOW},
		{"TIOCSTI's number on another system call is allowed", arch, unix.SYS_WRITE, [6]uint64{1, unix.TIOCSTI}, unix.SECCOMP_RET_ALLOW},
	}
	prog := seccompFilter(arch)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, runFilter(t, prog, tt.arch, tt.nr, tt.args))
		})
	}
}
