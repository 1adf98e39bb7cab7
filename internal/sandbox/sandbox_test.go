package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// isolation probes once per test binary run; tests that need the sandbox
// fail (never skip) when it is unavailable, since CI hosts provide it.
func requireIsolation(t *testing.T) {
	t.Helper()
	iso := Probe(context.Background())
	require.True(t, iso.Available(), "sandbox unavailable: %s", iso.Reason)
}

func runSh(t *testing.T, p Policy, script string) (string, int) {
	t.Helper()
	if p.Env == nil {
		p.Env = MinimalEnv(os.Environ())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, err := Command(ctx, p, []string{"sh", "-c", script})
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return out.String(), code
}

// pyErrno is a script that makes one raw system call through ctypes and
// prints its errno.
func pyErrno(call string) string {
	return `python3 -c 'import ctypes; libc=ctypes.CDLL(None, use_errno=True); r=` + call + `; print("ret=%d errno=%d" % (r, ctypes.get_errno()))'`
}

func TestProbe_FindsNamespaces(t *testing.T) {
	requireIsolation(t)
}

func TestCommand_Isolation(t *testing.T) {
	requireIsolation(t)
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("token"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "f"), []byte("x"), 0o644))
	scratch := t.TempDir()
	out, code := runSh(t, Policy{ReadOnly: []string{repo}, ReadWrite: []string{scratch}, Masked: []string{filepath.Join(repo, ".git")}, Dir: scratch},
		`echo init=$(tr '\\0' ' ' </proc/1/cmdline); cat `+repo+`/.git/config; echo w > `+repo+`/f || echo ro-ok; echo s > `+scratch+`/s && echo rw-ok; ls /home /root 2>&1 | head -1; umount `+repo+`/.git 2>&1 || echo umount-denied`)
	t.Log(out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "init=cogworks-sandbox-init", "PID 1 is the sandbox init: no ancestor is visible")
	assert.NotContains(t, out, "token")
	assert.Contains(t, out, "ro-ok")
	assert.Contains(t, out, "rw-ok")
	assert.Contains(t, out, "umount-denied")
	assert.FileExists(t, filepath.Join(scratch, "s"))
}

func TestNonDumpable(t *testing.T) {
	require.NoError(t, NonDumpable())
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, v, "no same-uid process can read this process's environ or mem")
}

func TestCommand_RejectsRelativePaths(t *testing.T) {
	tests := []Policy{
		{ReadOnly: []string{"repo"}},
		{ReadWrite: []string{"./scratch"}},
		{Masked: []string{".git"}},
		{Dir: "work"},
	}
	for _, p := range tests {
		_, err := Command(context.Background(), p, []string{"true"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "is not absolute")
	}
	_, err := Command(context.Background(), Policy{}, nil)
	require.Error(t, err, "an empty argv")
}

func TestCommand_LimitsLoopbackAndPrivileges(t *testing.T) {
	requireIsolation(t)
	tests := []struct {
		name   string
		policy Policy
		script string
		want   string
	}{
		{"only a loopback interface", Policy{}, `echo interfaces=$(grep -c ':' /proc/net/dev)`, "interfaces=1"},
		{"loopback is up", Policy{}, `python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); c=socket.create_connection(s.getsockname()); print("LOOPBACK-OK")'`, "LOOPBACK-OK"},
		{"memory limit", Policy{Limits: Limits{MemoryBytes: 256 << 20}}, `python3 -c 'bytearray(512<<20)' 2>&1 | grep -o MemoryError`, "MemoryError"},
		{"file size limit", Policy{Limits: Limits{FileBytes: 1 << 20}}, `head -c 2000000 /dev/zero > /tmp/big 2>/dev/null; echo size=$(wc -c < /tmp/big)`, "size=1048576"},
		{"private /tmp is size-limited", Policy{Limits: Limits{TmpBytes: 1 << 20}}, `head -c 3000000 /dev/zero > /tmp/big 2>&1 || echo TMP-FULL`, "TMP-FULL"},
		{"no capabilities", Policy{}, `grep CapEff /proc/self/status`, "CapEff:\t0000000000000000"},
		{"no new privileges", Policy{}, `grep NoNewPrivs /proc/self/status`, "NoNewPrivs:\t1"},
		{"root is read-only", Policy{}, `touch /pwned 2>&1 || echo ROOT-RO`, "ROOT-RO"},
		{"no host home or host tmp", Policy{}, `ls /home /root 2>&1 | grep -c 'No such'`, "2"},
		{"only the sandbox's processes", Policy{}, `[ $(ls -d /proc/[0-9]* | wc -l) -lt 10 ] && echo FEW-PROCS`, "FEW-PROCS"},
		{"seccomp filter", Policy{}, `grep Seccomp: /proc/self/status`, "Seccomp:\t2"},
		{"no nested user namespace", Policy{}, `unshare --user true 2>&1 || echo UNSHARE-DENIED`, "UNSHARE-DENIED"},
		{"no nested namespaces by clone", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_CLONE) + `, 0x10000000|17, 0, 0, 0, 0)`), "errno=1"},
		{"no keyrings", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_ADD_KEY) + `, b"user", b"k", b"v", 1, -3)`), "errno=1"},
		{"no eBPF", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_BPF) + `, 0, 0, 0)`), "errno=1"},
		{"no io_uring", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_IO_URING_SETUP) + `, 1, ctypes.create_string_buffer(120))`), "errno=1"},
		{"clone3 falls back", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_CLONE3) + `, 0, 0)`), "errno=38"},
		{"a session of its own", Policy{}, `python3 -c 'import os; print("sid=%d pgid=%d" % (os.getsid(0), os.getpgid(1)))'`, "sid=1 pgid=1"},
		{"no /dev/tty", Policy{}, `[ -e /dev/tty ] || echo NO-TTY`, "NO-TTY"},
		{"TIOCSTI is denied on every descriptor", Policy{}, `for fd in 0 1 2; do python3 -c 'import fcntl,sys,termios
try: fcntl.ioctl(int(sys.argv[1]), termios.TIOCSTI, b"x")
except OSError as e: print("errno=%d" % e.errno)' $fd; done | sort -u | tr -d '\n'`, "errno=1"},
		{"TIOCLINUX is denied", Policy{}, pyErrno(`libc.ioctl(0, 0x541c, ctypes.create_string_buffer(8))`), "errno=1"},
		{"isatty still works", Policy{}, `python3 -c 'import os; print("isatty=%s" % os.isatty(0))'`, "isatty=False"},
		{"no pidfd_getfd", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_PIDFD_GETFD) + `, 0, 0, 0)`), "errno=1"},
		{"no kcmp", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_KCMP) + `, 1, 1, 0, 0, 0)`), "errno=1"},
		{"no process_madvise", Policy{}, pyErrno(`libc.syscall(` + strconv.Itoa(unix.SYS_PROCESS_MADVISE) + `, 0, 0, 0, 0, 0)`), "errno=1"},
		{"threads and processes still start", Policy{}, `python3 -c 'import threading,subprocess; t=threading.Thread(target=print); t.start(); t.join(); subprocess.run(["true"], check=True); print("SPAWN-OK")'`, "SPAWN-OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, code := runSh(t, tt.policy, tt.script)
			assert.Equal(t, 0, code, out)
			assert.Contains(t, out, tt.want)
		})
	}
}

func TestCommand_EtcFilesBoundThroughLinks(t *testing.T) {
	requireIsolation(t)
	if _, err := os.Stat("/etc/resolv.conf"); err != nil {
		t.Skip("no /etc/resolv.conf on this host")
	}
	want, err := os.ReadFile("/etc/resolv.conf")
	require.NoError(t, err)
	out, code := runSh(t, Policy{}, `cat /etc/resolv.conf; ls /etc`)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, string(want), "name resolution works for the download step, even when resolv.conf links into /run")
	assert.NotContains(t, out, "shadow", "only the listed /etc files")
}

func TestCommand_LandlockScopesSignals(t *testing.T) {
	requireIsolation(t)
	iso := Probe(context.Background())
	if iso.LandlockABI < landlockScopeABI {
		t.Skipf("landlock ABI %d: no scoped signals on this kernel (setsid and the PID namespace still apply)", iso.LandlockABI)
	}
	// The init (PID 1) is outside the target's Landlock domain: signalling
	// it is refused; a process the target started is inside and is not.
	out, code := runSh(t, Policy{}, `python3 -c '
import os, signal, subprocess
try:
    os.kill(1, 0); print("init=reachable")
except PermissionError: print("init=EPERM")
p = subprocess.Popen(["sleep", "5"]); os.kill(p.pid, signal.SIGKILL); p.wait(); print("child=%d" % p.returncode)'`)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "init=EPERM")
	assert.Contains(t, out, "child=-9")
}

func TestCommand_MemoryCgroupBoundsTheWholeSandbox(t *testing.T) {
	requireIsolation(t)
	if !Probe(context.Background()).MemoryCgroup {
		t.Skip("the host gives this user no memory cgroup: only RLIMIT_AS per process binds (docs/sandbox.md)")
	}
	// Three processes touch 100 MiB each, within their RLIMIT_AS of 1 GiB,
	// under a total of 160 MiB: they cannot all hold it.
	script := `for i in 1 2 3; do python3 -c 'import time; b=bytearray(100<<20); time.sleep(1); print("HELD")' & done; wait`
	out, code := runSh(t, Policy{Limits: Limits{MemoryBytes: 1 << 30, TotalMemoryBytes: 160 << 20}}, script)
	t.Log(out)
	assert.Equal(t, 0, code)
	assert.Less(t, strings.Count(out, "HELD"), 3, "the memory cgroup bounds the sum")
	out, code = runSh(t, Policy{Limits: Limits{MemoryBytes: 1 << 30, TotalMemoryBytes: 1 << 30}}, script)
	assert.Equal(t, 0, code)
	assert.Equal(t, 3, strings.Count(out, "HELD"), "under a larger total all three hold their memory: %s", out)
}

func TestCommand_MountinfoNamesNoOverlayLayerOfTheHost(t *testing.T) {
	requireIsolation(t)
	lower, layer := t.TempDir(), t.TempDir()
	upper, work := filepath.Join(layer, "upper"), filepath.Join(layer, "work")
	require.NoError(t, os.Mkdir(upper, 0o700))
	require.NoError(t, os.Mkdir(work, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(lower, "shared"), []byte("from-lower"), 0o644))
	out, code := runSh(t, Policy{Overlays: []Overlay{{Target: "/tmp/cache", Lower: lower, Upper: upper, Work: work}}},
		`cat /proc/self/mountinfo; cat /tmp/cache/shared; echo new > /tmp/cache/written; ls -a / | grep -c layers`)
	require.Equal(t, 1, code, out) // grep -c found no staging directory left
	assert.Contains(t, out, " /tmp/cache ", "the overlay is mounted")
	assert.Contains(t, out, "from-lower")
	assert.NotContains(t, out, lower, "mountinfo names no host path of a layer")
	assert.NotContains(t, out, layer)
	assert.FileExists(t, filepath.Join(upper, "written"), "writes land in the host's upper layer")
}
