package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Main turns this process into the sandbox init (or the exec stage the
// init starts the target through) when it was started as one, and never
// returns then; otherwise it returns at once.
// Call it first thing in main and in the TestMain of every test package
// that runs sandboxed commands.
func Main() {
	if len(os.Args) >= 3 && os.Args[0] == execArg0 {
		os.Exit(runExec())
	}
	if len(os.Args) == 0 || os.Args[0] != initArg0 || os.Getenv(initGuardEnv) == "" {
		return
	}
	code, err := runInit()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: %v\n", err)
		os.Exit(125)
	}
	os.Exit(code)
}

// runInit sets the container up and runs the target as its only child,
// returning the target's exit status. It runs as PID 1 of the new PID
// namespace: when it returns, the kernel kills whatever the target left.
func runInit() (int, error) {
	// Capabilities, securebits and no_new_privs are per thread and are
	// inherited by the target from the thread that forks it: keep the
	// whole setup on one thread.
	runtime.LockOSThread()
	f := os.NewFile(3, "policy")
	var cfg config
	err := json.NewDecoder(f).Decode(&cfg)
	_ = f.Close()
	if err != nil {
		return 0, fmt.Errorf("read policy from fd 3: %w", err)
	}
	for _, cg := range cfg.Cgroups {
		if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte("0"), 0); err != nil {
			return 0, fmt.Errorf("join cgroup %s: %w", cg, err)
		}
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if err := buildRoot(cfg); err != nil {
		return 0, err
	}
	if !cfg.Policy.Network {
		if err := loopbackUp(); err != nil {
			return 0, err
		}
	}
	_ = unix.Sethostname([]byte("cogworks-sandbox"))
	if err := pivot(cfg.Root); err != nil {
		return 0, err
	}
	if err := dropPrivileges(); err != nil {
		return 0, err
	}
	if cfg.Probe {
		// What the target would get, seen from inside the sandbox.
		fmt.Printf("%s landlock=%d\n", probeOK, landlockABI())
		return 0, nil
	}
	return runTarget(cfg)
}

func setLimits(l Limits) error {
	for _, r := range []struct {
		name     string
		resource int
		value    uint64
	}{
		{"RLIMIT_AS", unix.RLIMIT_AS, l.MemoryBytes},
		{"RLIMIT_CPU", unix.RLIMIT_CPU, l.CPUSeconds},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, l.Processes},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, l.FileBytes},
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0},
	} {
		lim := unix.Rlimit{Cur: r.value, Max: r.value}
		if err := unix.Setrlimit(r.resource, &lim); err != nil {
			return fmt.Errorf("set %s=%d: %w", r.name, r.value, err)
		}
	}
	return nil
}

// dropPrivileges leaves the target no capability inside the user
// namespace (so it cannot unmount a mask or remount the repository
// writable) and no way to regain one: empty bounding and inheritable
// sets, no ambient capabilities, securebits that deny root its
// capabilities on exec, and no_new_privs.
func dropPrivileges() error {
	last := 40
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			last = n
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	const securebits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 // NOROOT, NO_SETUID_FIXUP, KEEP_CAPS: each locked
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, securebits&^(1<<4), 0, 0, 0); err != nil {
		return fmt.Errorf("set securebits: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	for i := range data {
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear inheritable capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

// execArg0 is the argv[0] of the exec stage between the init and the
// target.
const execArg0 = "cogworks-sandbox-exec"

// runExec is the exec stage: argv is [execArg0, limits JSON, path,
// target argv...]. It sets the limits, the Landlock scope (where the
// kernel has it) and the seccomp filter on itself and executes the
// target, which inherits them (and the init's lack of privileges).
func runExec() int {
	var l Limits
	if err := json.Unmarshal([]byte(os.Args[1]), &l); err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: decode limits: %v\n", err)
		return 126
	}
	if err := setLimits(l); err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: %v\n", err)
		return 126
	}
	// The seccomp filter binds the thread that installs it and passes
	// across execve from that thread: install and exec on one thread.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: set no_new_privs: %v\n", err)
		return 126
	}
	// Landlock binds the thread that restricts itself, like seccomp.
	if err := landlockScope(); err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: %v\n", err)
		return 126
	}
	if err := installSeccomp(); err != nil {
		fmt.Fprintf(os.Stderr, "cogworks sandbox: %v\n", err)
		return 126
	}
	err := syscall.Exec(os.Args[2], os.Args[3:], os.Environ())
	fmt.Fprintf(os.Stderr, "cogworks sandbox: exec %s: %v\n", os.Args[2], err)
	return 127
}

// runTarget starts the target as the init's child, forwards termination
// signals to it and reaps every orphan until the target exits.
func runTarget(cfg config) (int, error) {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, initGuardEnv+"=") })
	path := cfg.Argv[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return 0, fmt.Errorf("find %s in the sandbox: %w", path, err)
		}
		path = p
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	limits, err := json.Marshal(cfg.Policy.Limits)
	if err != nil {
		return 0, fmt.Errorf("encode limits: %w", err)
	}
	// The limits bind the target, not the init: a Go init under a small
	// RLIMIT_AS could not even start a thread. The exec stage (this binary
	// again, see runExec) sets them and replaces itself by the target.
	argv := append([]string{execArg0, string(limits), path}, cfg.Argv...)
	proc, err := os.StartProcess("/proc/self/exe", argv, &os.ProcAttr{
		Dir: cfg.Policy.Dir, Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		for s := range sigs {
			_ = proc.Signal(s)
		}
	}()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("wait for %s: %w", path, err)
		}
		if pid != proc.Pid {
			continue
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus(), nil
		case ws.Signaled():
			return 128 + int(ws.Signal()), nil
		}
	}
}

// NonDumpable makes this process non-dumpable: its /proc/<pid>/environ,
// mem and the like then belong to root and it cannot be ptraced, so a
// process of the same user (generated code that escaped, a twin) cannot
// read the secrets in its environment or memory.
func NonDumpable() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}
