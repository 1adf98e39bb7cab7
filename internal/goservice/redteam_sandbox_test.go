package goservice_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// serveSocketEnv is goservice's test-binary switch (main_test.go): serve
// on the socket it names.
const serveSocketEnv = "COGWORKS_GOSERVICE_TEST_SERVE_SOCKET"

// injected is the line the terminal attack pushes; the generated test
// builds it at run time, so that only a successful injection (its echo,
// or the line waiting in the terminal's input) shows it.
const injected = "echo INJECTED-4242"

// TestRedTeam_TerminalInjection: a generated test pushes a command line
// into the service's controlling terminal with ioctl(TIOCSTI), through
// /dev/tty and fds 0-2; a shell reading that terminal would run it after
// the service exits. Before issue 25 the sandbox kept the caller's session
// and bound /dev/tty, and this kernel allows legacy TIOCSTI: the line
// arrived. Now the sandbox has its own session, no /dev/tty, and seccomp
// denies TIOCSTI.
func TestRedTeam_TerminalInjection(t *testing.T) {
	requireRedTeam(t)
	master, slave := openPty(t)
	var mu sync.Mutex
	var echoed []byte
	go func() { // drain the terminal's output, as a terminal emulator does
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			echoed = append(echoed, buf[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	dir, err := os.MkdirTemp("", "cw")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "go.sock")
	svc := exec.Command(os.Args[0])
	svc.Env = append(os.Environ(), serveSocketEnv+"="+sock)
	svc.Stdin, svc.Stdout, svc.Stderr = slave, slave, slave
	svc.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	require.NoError(t, svc.Start())
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = svc.Process.Signal(syscall.SIGTERM)
			_ = svc.Wait()
		}
	}
	t.Cleanup(stop)
	require.Eventually(t, func() bool { _, err := os.Stat(sock); return err == nil }, 30*time.Second, 20*time.Millisecond, "the service listens")

	src := `package rt

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

func TestTTY(t *testing.T) {
	line := "echo " + "INJ" + "ECTED-" + fmt.Sprint(4242) + "\n"
	push := func(name string, fd int) {
		var errno syscall.Errno
		for i := 0; i < len(line) && errno == 0; i++ {
			c := line[i]
			_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCSTI, uintptr(unsafe.Pointer(&c)))
		}
		t.Logf("ATTACK-RAN TIOCSTI on %s: %v", name, errno)
	}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		t.Logf("ATTACK-RAN open /dev/tty: %v", err)
	} else {
		push("/dev/tty", int(f.Fd()))
	}
	for fd := 0; fd < 3; fd++ {
		push(fmt.Sprint("fd ", fd), fd)
	}
}
`
	res := simulateAttack(t, newClient(t, sock), redTeamRepo(t, ""), domain.Artifact{Path: "rt/tty_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	t.Log(res.Output)
	stop()
	pending := ioctlInt(t, slave, unix.TIOCINQ)
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.NotContains(t, string(echoed), injected, "the injected line reached the terminal")
	assert.Zero(t, pending, "no input waits for the shell on the terminal")
}

// openPty opens a pseudo-terminal pair.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = master.Close() })
	var n int
	ctl(t, master, func(fd uintptr) error {
		if err := unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err != nil {
			return err
		}
		var err error
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		return err
	})
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = slave.Close() })
	return master, slave
}

// ctl runs fn on f's descriptor without making it blocking (File.Fd
// would).
func ctl(t *testing.T, f *os.File, fn func(fd uintptr) error) {
	t.Helper()
	rc, err := f.SyscallConn()
	require.NoError(t, err)
	var ferr error
	require.NoError(t, rc.Control(func(fd uintptr) { ferr = fn(fd) }))
	require.NoError(t, ferr)
}

func ioctlInt(t *testing.T, f *os.File, req uint) int {
	t.Helper()
	var v int
	ctl(t, f, func(fd uintptr) error {
		var err error
		v, err = unix.IoctlGetInt(int(fd), req)
		return err
	})
	return v
}

// TestRedTeam_SignalsStayInTheSandbox: a generated test signals its
// process group and every process it can (kill(0), kill(-1)). The
// in-process service runs the sandbox from this test process; before
// issue 25 the sandbox shared this process's group, and SIGUSR1 arrived
// here (SIGKILL or SIGSTOP would kill or freeze the bot). Now the sandbox
// has its own session and process group, and where Landlock ABI >= 6 its
// signals are scoped to it.
func TestRedTeam_SignalsStayInTheSandbox(t *testing.T) {
	requireRedTeam(t)
	got := make(chan os.Signal, 4)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)
	src := `package rt

import (
	"syscall"
	"testing"
)

func TestSignals(t *testing.T) {
	e0 := syscall.Kill(0, syscall.SIGUSR1)
	e1 := syscall.Kill(-1, syscall.SIGUSR1)
	t.Logf("ATTACK-RAN kill(0)=%v kill(-1)=%v", e0, e1)
}
`
	c := startService(t, goservice.Options{})
	res := simulateAttack(t, c, redTeamRepo(t, ""), domain.Artifact{Path: "rt/signal_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	select {
	case s := <-got:
		t.Errorf("a process outside the sandbox received %v", s)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestRedTeam_TotalMemoryIsBounded: three processes each touch 300 MiB,
// well within RLIMIT_AS (per process), under a total of 512 MiB. Before
// issue 25 all three held their memory (only RLIMIT_AS bound, per
// process); now the sandbox's memory cgroup bounds the sum. A host that
// gives no memory cgroup (unprivileged) has only the per-process bound:
// the test says so and skips.
func TestRedTeam_TotalMemoryIsBounded(t *testing.T) {
	requireRedTeam(t)
	if !sandbox.Probe(context.Background()).MemoryCgroup {
		t.Skip("no memory cgroup for this user: only RLIMIT_AS per process binds (docs/sandbox.md)")
	}
	src := `package rt

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

func init() {
	if os.Getenv("RT_CHILD") == "1" {
		b := make([]byte, 300<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		time.Sleep(2 * time.Second)
		fmt.Println("HELD", len(b))
		os.Exit(0)
	}
}

func TestMemory(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RT_CHILD=1")
			out, err := cmd.CombinedOutput()
			t.Logf("child: %v %s", err, out)
			if strings.Contains(string(out), "HELD") {
				mu.Lock()
				held++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("ATTACK-RAN held=%d", held)
}
`
	c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{Limits: sandbox.Limits{TotalMemoryBytes: 512 << 20}}})
	res := simulateAttack(t, c, redTeamRepo(t, ""), domain.Artifact{Path: "rt/memory_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.NotContains(t, res.Output, "held=3", "three 300 MiB processes under a 512 MiB total: %s", res.Output)
}

// TestRedTeam_DiskQuotas: a generated test writes 300 MiB into the build
// cache (the repository's persistent overlay layer on the host) and 300
// MiB into the workspace. Before issue 25 the cache layer kept them after
// the request and the request passed. Now the request fails with the
// workspace quota, its workspace is removed, and the cache layer is
// trimmed to its quota: the host keeps at most the quotas.
func TestRedTeam_DiskQuotas(t *testing.T) {
	requireRedTeam(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the service's workspaces, sockets and cache layers
	src := `package rt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fill(t *testing.T, p string) {
	f, err := os.Create(p)
	if err != nil {
		t.Logf("ATTACK-RAN create %s: %v", p, err)
		return
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for i := 0; i < 300; i++ {
		if _, err := f.Write(chunk); err != nil {
			t.Logf("ATTACK-RAN write %s: %v", p, err)
			return
		}
	}
	t.Logf("ATTACK-RAN wrote 300 MiB to %s", p)
}

func TestFill(t *testing.T) {
	dir := filepath.Join(os.Getenv("GOCACHE"), "planted")
	_ = os.MkdirAll(dir, 0o755)
	fill(t, filepath.Join(dir, "blob"))
	fill(t, filepath.Join(os.Getenv("GOCACHE"), "ab", "ab"+strings.Repeat("0", 62)+"-d")) // named like a cache entry
	fill(t, "workspace-blob")
}
`
	const quota = 64 << 20
	c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{WorkspaceBytes: quota}, CacheBytes: quota})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := c.Simulate(ctx, domain.Request{Repository: domain.Repository{Path: redTeamRepo(t, "")}, Artifacts: []domain.Artifact{{Path: "rt/fill_test.go", Content: src}}},
		domain.SimulateParams{Packages: []string{"./rt"}, Timeout: "60s"})
	if assert.Error(t, err, "the request fails: generated code exceeded the workspace quota") {
		assert.Contains(t, err.Error(), "workspace quota exceeded")
	}
	used := hostUsage(t, tmp)
	assert.LessOrEqual(t, used, int64(quota+8<<20), "the host keeps at most the cache quota (plus the service's own few files): %d MiB", used>>20)
}

// hostUsage is the disk space under dir (allocated blocks, links not
// followed).
func hostUsage(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil {
			total += st.Blocks * 512
		}
		return nil
	})
	require.NoError(t, err)
	return total
}
