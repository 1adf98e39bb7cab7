package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Mode names the isolation a host allows.
type Mode string

// Isolation modes.
const (
	// Namespaces: user, PID, mount, network, IPC and UTS namespaces work.
	Namespaces Mode = "namespaces"
	// None: no isolation is available; generated code must not run unless
	// the operator opts out with UnsafeEnv.
	None Mode = "none"
)

// UnsafeEnv is the operator's opt-out: with it set to 1, commands run
// without isolation where none is available (a warning is logged at every
// use).
const UnsafeEnv = "COGWORKS_UNSAFE_NO_SANDBOX"

// AllowNetworkEnv is the operator's consent to the network for the
// repositories whose configuration asks for it ([sandbox] network = true).
const AllowNetworkEnv = "COGWORKS_SANDBOX_ALLOW_NETWORK"

// Isolation is what Probe found: the mode the host allows and, for None,
// why. The caller holds it; nothing is cached globally.
type Isolation struct {
	Mode   Mode
	Reason string
	// LandlockABI is the Landlock ABI the sandbox found (0: none). From
	// ABI 6 the target's signals and abstract unix sockets are scoped to
	// the sandbox.
	LandlockABI int
	// PidsCgroup and MemoryCgroup report whether the host let the caller
	// bound the sandbox as a whole with a pids and a memory cgroup.
	PidsCgroup, MemoryCgroup bool
}

// Available reports whether commands can run isolated.
func (i Isolation) Available() bool { return i.Mode == Namespaces }

// landlockScopeABI is the first Landlock ABI with scoped signals and
// abstract unix sockets (Linux 6.12).
const landlockScopeABI = 6

// String renders the isolation for logs and doctor: the namespaces, then
// what bounds the sandbox's session, signals, memory and processes (with
// DefaultLimits' figures; a caller may configure others).
func (i Isolation) String() string {
	if !i.Available() {
		return string(None) + ": " + i.Reason
	}
	var b strings.Builder
	b.WriteString(string(Namespaces) + " (user, pid, mount, network, ipc, uts)")
	b.WriteString("; session: own (setsid), no terminal, TIOCSTI/TIOCLINUX denied")
	if i.LandlockABI >= landlockScopeABI {
		fmt.Fprintf(&b, "; landlock ABI %d: signals, abstract unix sockets and ptrace scoped to the sandbox", i.LandlockABI)
	} else {
		fmt.Fprintf(&b, "; landlock: unavailable (ABI %d, scoping needs 6, Linux 6.12): signals kept in by setsid and the PID namespace", i.LandlockABI)
	}
	d := DefaultLimits()
	if i.MemoryCgroup {
		fmt.Fprintf(&b, "; memory: cgroup, %s for the whole sandbox", gib(d.TotalMemoryBytes))
	} else {
		fmt.Fprintf(&b, "; memory: no cgroup, RLIMIT_AS %s per process only", gib(d.MemoryBytes))
	}
	if i.PidsCgroup {
		fmt.Fprintf(&b, "; processes: pids cgroup, %d", d.Processes)
	} else {
		fmt.Fprintf(&b, "; processes: RLIMIT_NPROC %d only (does not bind root)", d.Processes)
	}
	fmt.Fprintf(&b, "; /tmp: tmpfs %s", gib(d.TmpBytes))
	return b.String()
}

// gib renders a byte count in GiB.
func gib(n uint64) string { return strconv.FormatFloat(float64(n)/(1<<30), 'f', -1, 64) + " GiB" }

// Fix is the hint that makes isolation available on this kind of host.
const Fix = "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also " +
	"kernel.apparmor_restrict_unprivileged_userns=0; in a container run with --security-opt seccomp=unconfined " +
	"--security-opt apparmor=unconfined or privileged), or set " + UnsafeEnv + "=1 to run generated code unisolated (unsafe)"

// UnavailableError refuses to execute generated code without isolation.
type UnavailableError struct {
	// Reason is why Probe found no isolation.
	Reason string
}

// Error implements error.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("refusing to execute generated code: no sandbox isolation on this host (%s); fix: %s", e.Reason, Fix)
}

// Limits bound what a sandboxed command may consume. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// MemoryBytes is RLIMIT_AS of every process.
	MemoryBytes uint64
	// TotalMemoryBytes bounds the memory (swap included) of the whole
	// sandbox, its /tmp included, through a memory cgroup where the host
	// lets the caller create one (root; a delegated cgroup v2 root).
	// Elsewhere only MemoryBytes binds, per process (see Isolation).
	TotalMemoryBytes uint64
	// CPUSeconds is RLIMIT_CPU of every process.
	CPUSeconds uint64
	// Processes bounds the tasks (processes and threads) of the sandbox:
	// RLIMIT_NPROC, plus a pids cgroup where the host lets the caller
	// create one (root: RLIMIT_NPROC does not bind uid 0).
	Processes uint64
	// FileBytes is RLIMIT_FSIZE: the largest file a process may write.
	FileBytes uint64
	// TmpBytes is the size of the private /tmp.
	TmpBytes uint64
	// OutputBytes caps the captured standard output and error in the
	// parent (see Output).
	OutputBytes int
}

// DefaultLimits are generous enough for go test on a large module.
func DefaultLimits() Limits {
	return Limits{
		MemoryBytes:      8 << 30,
		TotalMemoryBytes: 8 << 30,
		CPUSeconds:       30 * 60,
		Processes:        4096,
		FileBytes:        2 << 30,
		TmpBytes:         2 << 30,
		OutputBytes:      16 << 20,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MemoryBytes == 0 {
		l.MemoryBytes = d.MemoryBytes
	}
	if l.TotalMemoryBytes == 0 {
		l.TotalMemoryBytes = d.TotalMemoryBytes
	}
	if l.CPUSeconds == 0 {
		l.CPUSeconds = d.CPUSeconds
	}
	if l.Processes == 0 {
		l.Processes = d.Processes
	}
	if l.FileBytes == 0 {
		l.FileBytes = d.FileBytes
	}
	if l.TmpBytes == 0 {
		l.TmpBytes = d.TmpBytes
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = d.OutputBytes
	}
	return l
}

// Overlay mounts Lower (read-only) under Upper (the writable layer, with
// Work its overlayfs work directory) at Target. It gives a sandbox a
// private writable view of a shared directory, e.g. a build cache whose
// entries it may read but never replace for another repository.
type Overlay struct {
	Target, Lower, Upper, Work string
}

// Policy is what one sandboxed command may see and do. Paths are absolute
// and appear at the same path inside the sandbox.
type Policy struct {
	// ReadOnly paths are bind-mounted read-only.
	ReadOnly []string
	// ReadWrite paths are bind-mounted writable.
	ReadWrite []string
	// Masked paths are hidden under an empty read-only tmpfs (a file under
	// an empty file); a missing path is ignored.
	Masked []string
	// Overlays are writable views of shared directories.
	Overlays []Overlay
	// Binds mount a host directory at another path inside the sandbox.
	Binds []Bind
	// Network keeps the host's network; otherwise the sandbox has only its
	// own loopback.
	Network bool
	// Env is the complete environment of the command.
	Env []string
	// Dir is the working directory inside the sandbox.
	Dir string
	// Limits bound the command's resources.
	Limits Limits
}

// Bind mounts the host directory Source at Target inside the sandbox,
// writable unless ReadOnly. It gives per-request directories one fixed
// path, so that what the toolchain records of a path (build cache keys,
// runtime.Caller, panics) is the same for every request.
type Bind struct {
	Source, Target string
	ReadOnly       bool
}

// Home is the throw-away home directory inside every sandbox (on its
// private /tmp).
const Home = "/tmp/home"

// MinimalEnv returns the base of a sandboxed command's environment: PATH
// from environ (or a default), HOME pointing at the throw-away Home and
// TMPDIR=/tmp. Nothing else of environ passes.
func MinimalEnv(environ []string) []string {
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok && v != "" {
			path = v
		}
	}
	return []string{"PATH=" + path, "HOME=" + Home, "TMPDIR=/tmp", "LANG=C.UTF-8"}
}
