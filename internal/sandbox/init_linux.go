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
	if cfg.Cgroup != "" {
		if err := os.WriteFile(filepath.Join(cfg.Cgroup, "cgroup.procs"), []byte("0"), 0); err != nil {
			return 0, fmt.Errorf("join pids cgroup %s: %w", cfg.Cgroup, err)
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
		fmt.Println(probeOK)
		return 0, nil
	}
	return runTarget(cfg)
}

// mountFlags maps statfs flags to the mount flags a read-only remount of
// a bind mount must keep: in a user namespace the kernel locks them.
var mountFlags = []struct{ st, ms uintptr }{
	{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
	{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
}

// systemDirs are bound read-only when the host has them (symbolic links,
// as on merged-/usr systems, are copied as links).
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcFiles are the only entries of /etc a sandbox sees: users, name
// resolution, TLS roots and the dynamic loader's cache.
var etcFiles = []string{
	"passwd", "group", "hosts", "nsswitch.conf", "resolv.conf", "host.conf", "gai.conf", "services", "protocols",
	"ssl", "ca-certificates", "pki", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "mime.types",
}

// devFiles are bound from the host's /dev.
var devFiles = []string{"null", "zero", "full", "random", "urandom", "tty"}

type mountKind int

const (
	bindRO mountKind = iota
	bindRW
	overlay
)

type userMount struct {
	path string
	kind mountKind
	ov   Overlay
}

// buildRoot assembles the new root file system on a tmpfs at cfg.Root.
func buildRoot(cfg config) error {
	root := cfg.Root
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("cogworks-root", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=16m,mode=0755"); err != nil {
		return fmt.Errorf("mount root tmpfs on %s: %w", root, err)
	}
	for _, d := range systemDirs {
		if err := bindSystem(root, d); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		return fmt.Errorf("create /etc: %w", err)
	}
	for _, e := range etcFiles {
		// Bound through their links: /etc/resolv.conf is often a link into
		// /run, which the sandbox does not have.
		if _, err := os.Stat("/etc/" + e); err != nil {
			continue
		}
		if err := bind("/etc/"+e, filepath.Join(root, "etc", e), true); err != nil {
			return err
		}
	}
	if err := mountSpecial(root, cfg.Policy.Limits); err != nil {
		return err
	}
	var mounts []userMount
	for _, p := range cfg.Policy.ReadOnly {
		mounts = append(mounts, userMount{path: p, kind: bindRO})
	}
	for _, p := range cfg.Policy.ReadWrite {
		mounts = append(mounts, userMount{path: p, kind: bindRW})
	}
	for _, o := range cfg.Policy.Overlays {
		mounts = append(mounts, userMount{path: o.Target, kind: overlay, ov: o})
	}
	// Parents before children, so that a child is mounted over its parent.
	slices.SortStableFunc(mounts, func(a, b userMount) int { return depth(a.path) - depth(b.path) })
	for _, m := range mounts {
		if err := mountUser(root, m); err != nil {
			return err
		}
	}
	for _, p := range cfg.Policy.Masked {
		if err := mask(root, p); err != nil {
			return err
		}
	}
	if err := unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("make the root read-only: %w", err)
	}
	return nil
}

func depth(p string) int { return strings.Count(filepath.Clean(p), "/") }

// bindSystem binds host path p read-only at the same place under root,
// or recreates it as a link; a missing p is skipped.
func bindSystem(root, p string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	dst := filepath.Join(root, p)
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return fmt.Errorf("read link %s: %w", p, err)
		}
		return os.Symlink(target, dst)
	}
	return bind(p, dst, true)
}

// bind mounts src on dst (created as a directory or an empty file like
// src), read-only when ro.
func bind(src, dst string, ro bool) error {
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if err := mountPointLike(dst, info.IsDir()); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if !ro {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dst, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range mountFlags {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", dst, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s read-only: %w", src, err)
	}
	return nil
}

func mountPointLike(dst string, dir bool) error {
	if dir {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("create mount point %s: %w", dst, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create mount point %s: %w", dst, err)
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("create mount point %s: %w", dst, err)
	}
	return f.Close()
}

// mountSpecial mounts a fresh /proc (of the new PID namespace: no
// ancestor is visible), a minimal /dev and the private /tmp with Home.
func mountSpecial(root string, lim Limits) error {
	proc := filepath.Join(root, "proc")
	if err := os.MkdirAll(proc, 0o555); err != nil {
		return fmt.Errorf("create /proc: %w", err)
	}
	if err := unix.Mount("proc", proc, "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	dev := filepath.Join(root, "dev")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		return fmt.Errorf("create /dev: %w", err)
	}
	if err := unix.Mount("cogworks-dev", dev, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,mode=0755"); err != nil {
		return fmt.Errorf("mount /dev: %w", err)
	}
	for _, d := range devFiles {
		if _, err := os.Stat("/dev/" + d); err != nil {
			continue
		}
		if err := mountPointLike(filepath.Join(dev, d), false); err != nil {
			return err
		}
		if err := unix.Mount("/dev/"+d, filepath.Join(dev, d), "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind /dev/%s: %w", d, err)
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, filepath.Join(dev, name)); err != nil {
			return fmt.Errorf("link /dev/%s: %w", name, err)
		}
	}
	if err := unix.Mount("", dev, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("make /dev read-only: %w", err)
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o1777); err != nil {
		return fmt.Errorf("create /tmp: %w", err)
	}
	if err := unix.Mount("cogworks-tmp", tmp, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size="+strconv.FormatUint(lim.TmpBytes, 10)); err != nil {
		return fmt.Errorf("mount /tmp: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(root, Home), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", Home, err)
	}
	return nil
}

// mountUser mounts one of the policy's paths.
func mountUser(root string, m userMount) error {
	dst := filepath.Join(root, m.path)
	switch m.kind {
	case bindRO, bindRW:
		return bind(m.path, dst, m.kind == bindRO)
	}
	o := m.ov
	if o.Lower != "" {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("create mount point %s: %w", dst, err)
		}
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", o.Lower, o.Upper, o.Work)
		if unix.Mount("overlay", dst, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts+",userxattr") == nil ||
			unix.Mount("overlay", dst, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts) == nil {
			return nil
		}
	}
	// Without overlayfs the sandbox gets the private layer alone: slower
	// (nothing shared to read) but as isolated.
	return bind(o.Upper, dst, false)
}

// mask hides p under an empty read-only tmpfs, or a file under an empty
// read-only file.
func mask(root, p string) error {
	dst := filepath.Join(root, p)
	info, err := os.Stat(dst)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mask %s: %w", p, err)
	}
	if info.IsDir() {
		if err := unix.Mount("cogworks-mask", dst, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
			return fmt.Errorf("mask %s: %w", p, err)
		}
		return nil
	}
	if err := unix.Mount("/dev/null", dst, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("mask %s: %w", p, err)
	}
	if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mask %s read-only: %w", p, err)
	}
	return nil
}

// loopbackUp brings lo up in the new network namespace, so that tests
// listening on 127.0.0.1 work while nothing else is reachable.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: get flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: set up: %w", err)
	}
	return nil
}

// pivot makes root the file system root and detaches the host's.
func pivot(root string) error {
	if err := unix.Chdir(root); err != nil {
		return fmt.Errorf("chdir %s: %w", root, err)
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot_root %s: %w", root, err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host root: %w", err)
	}
	return unix.Chdir("/")
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
// target argv...]. It sets the limits on itself and executes the target,
// which inherits them (and the init's lack of privileges).
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
