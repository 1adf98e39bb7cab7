package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// initArg0 is the argv[0] the init is started with; Main keys on it.
const initArg0 = "cogworks-sandbox-init"

// initGuardEnv is set in the init's environment (and removed before the
// target starts) so that a binary that forgot to call Main, re-executed as
// the init, refuses to start sandboxes of its own instead of recursing.
const initGuardEnv = "COGWORKS_SANDBOX_INIT"

// probeOK is what the init prints in probe mode once the whole container
// is set up.
const probeOK = "cogworks-sandbox-ok"

// config is what the init receives on file descriptor 3.
type config struct {
	Policy Policy
	Argv   []string
	// Root is the directory the new root tmpfs is mounted on (in the
	// init's own mount namespace, so every sandbox may share it).
	Root string
	// Cgroups are the cgroup directories the init joins first (pids,
	// memory; none where the host gives none).
	Cgroups []string
	// Probe: set the container up, print probeOK and exit.
	Probe bool
}

// Cmd is a sandboxed command. Start it with Start and reap it with Wait
// (or use Run): Wait also removes what the sandbox left on the host.
type Cmd struct {
	*exec.Cmd
	cleanup func()
	// cgroups are the cgroups that bound this sandbox as a whole.
	cgroups cgroups
}

// Wait waits for the sandbox's init (and so for everything in it) to exit,
// then removes its host-side resources.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.cleanup()
	return err
}

// Start starts the sandbox's init. Go writes the child's uid_map and
// gid_map from this process before the child execs, and the kernel lets it
// only while the child, which inherits this process's dumpable flag, is
// dumpable: a non-root process that made itself non-dumpable (cogworks and
// the domain service do, see NonDumpable) is dumpable again for the few
// milliseconds of the start. Nothing in the sandbox can see this process
// (its own PID namespace), and the flag is process-wide, so the window is
// serialised.
func (c *Cmd) Start() error {
	startMu.Lock()
	defer startMu.Unlock()
	if os.Getuid() != 0 {
		if was, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); err == nil && was == 0 {
			if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
				return fmt.Errorf("sandbox: allow the uid map: %w", err)
			}
			defer func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }()
		}
	}
	return c.Cmd.Start()
}

// startMu serialises Start: the dumpable flag it may lift is the
// process's, not the command's.
var startMu sync.Mutex

// CombinedOutput runs the command and returns its standard output and
// standard error together (through Start, unlike exec.Cmd's).
func (c *Cmd) CombinedOutput() ([]byte, error) {
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		c.cleanup()
		return err
	}
	return c.Wait()
}

// Command returns the command running argv under policy. Its process is
// the current binary re-executed as the sandbox init (see Main), started
// in new namespaces with the caller's uid and gid mapped to root, killed
// with the caller's thread (Pdeathsig) and, through exec.CommandContext,
// when ctx ends: as PID 1 of the sandbox its death kills every process in
// it. The policy travels on an extra file descriptor, never in the
// environment the target sees.
func Command(ctx context.Context, policy Policy, argv []string) (*Cmd, error) {
	if os.Getenv(initGuardEnv) != "" {
		return nil, errors.New("sandbox: this process was started as a sandbox init but did not call sandbox.Main first thing")
	}
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty argv")
	}
	policy.Limits = policy.Limits.withDefaults()
	if policy.Dir == "" {
		policy.Dir = "/"
	}
	for _, p := range allPaths(policy) {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: policy path %q is not absolute", p)
		}
	}
	root, err := mountPoint()
	if err != nil {
		return nil, err
	}
	return newCmd(ctx, config{Policy: policy, Argv: argv, Root: root})
}

func newCmd(ctx context.Context, cfg config) (*Cmd, error) {
	policy := cfg.Policy
	cg := newCgroups(policy.Limits)
	cfg.Cgroups = cg.dirs
	cleanup := cg.remove
	fd, err := configFile(cfg)
	if err != nil {
		cleanup()
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe")
	cmd.Args = []string{initArg0}
	cmd.Env = append(append([]string(nil), policy.Env...), initGuardEnv+"=1")
	cmd.ExtraFiles = []*os.File{fd}
	cmd.WaitDelay = 5 * time.Second
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	if !policy.Network {
		flags |= syscall.CLONE_NEWNET
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A session of its own: no controlling terminal to push keystrokes
		// into (TIOCSTI), and kill(0, sig) reaches only the sandbox's own
		// process group, never the caller's.
		Setsid:      true,
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
	done := cleanup
	return &Cmd{Cmd: cmd, cleanup: func() { _ = fd.Close(); done() }, cgroups: cg}, nil
}

// configFile writes cfg to an anonymous memory file the init reads.
func configFile(cfg config) (*os.File, error) {
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	mfd, err := unix.MemfdCreate("cogworks-sandbox-policy", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: memfd for the policy: %w", err)
	}
	f := os.NewFile(uintptr(mfd), "cogworks-sandbox-policy")
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sandbox: write policy: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sandbox: rewind policy: %w", err)
	}
	return f, nil
}

func allPaths(p Policy) []string {
	out := append(append(append([]string(nil), p.ReadOnly...), p.ReadWrite...), p.Masked...)
	for _, b := range p.Binds {
		out = append(out, b.Source, b.Target)
	}
	for _, o := range p.Overlays {
		out = append(out, o.Target, o.Upper, o.Work)
		if o.Lower != "" {
			out = append(out, o.Lower)
		}
	}
	return append(out, p.Dir)
}

// Probe tries once to start a complete sandbox (all namespaces, the root
// file system, loopback) and reports which isolation the host allows.
func Probe(ctx context.Context) Isolation {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd, err := probeCmd(ctx)
	if err != nil {
		return Isolation{Mode: None, Reason: err.Error()}
	}
	out, err := cmd.CombinedOutput() // cleans up, through Run
	if err == nil && strings.Contains(string(out), probeOK) {
		iso := Isolation{Mode: Namespaces, PidsCgroup: cmd.cgroups.pids, MemoryCgroup: cmd.cgroups.memory}
		if _, after, ok := strings.Cut(string(out), probeOK+" landlock="); ok {
			iso.LandlockABI, _ = strconv.Atoi(strings.TrimSpace(after))
		}
		return iso
	}
	reason := strings.TrimSpace(string(out))
	if err != nil {
		reason = strings.TrimSpace(fmt.Sprintf("%v %s", err, reason))
	}
	if reason == "" {
		reason = "the re-executed binary did not enter sandbox.Main (call it first thing in main or TestMain)"
	}
	if v, rerr := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); rerr == nil && strings.TrimSpace(string(v)) == "1" {
		reason += "; AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1)"
	}
	return Isolation{Mode: None, Reason: reason}
}

// probeCmd is a sandbox in probe mode: the init sets everything up,
// prints probeOK and exits without starting a target.
func probeCmd(ctx context.Context) (*Cmd, error) {
	if os.Getenv(initGuardEnv) != "" {
		return nil, errors.New("sandbox: this process was started as a sandbox init but did not call sandbox.Main first thing")
	}
	root, err := mountPoint()
	if err != nil {
		return nil, err
	}
	policy := Policy{Env: MinimalEnv(os.Environ()), Dir: "/", Limits: Limits{Processes: 64}.withDefaults()}
	return newCmd(ctx, config{Policy: policy, Argv: []string{"true"}, Root: root, Probe: true})
}

// mountPoint is the host directory every sandbox's init mounts its new
// root on, each in its own mount namespace, so one directory serves all.
func mountPoint() (string, error) {
	root := filepath.Join(os.TempDir(), "cogworks-sandbox-root")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: create mount point %s: %w", root, err)
	}
	return root, nil
}
