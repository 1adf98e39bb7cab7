package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

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

// devFiles are bound from the host's /dev. Not tty: the sandbox has its
// own session and no controlling terminal to reach through it.
var devFiles = []string{"null", "zero", "full", "random", "urandom"}

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
	// src is the host path bound at path when it differs (Policy.Binds).
	src string
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
	for _, b := range cfg.Policy.Binds {
		kind := bindRW
		if b.ReadOnly {
			kind = bindRO
		}
		mounts = append(mounts, userMount{path: b.Target, kind: kind, src: b.Source})
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
		src := m.path
		if m.src != "" {
			src = m.src
		}
		return bind(src, dst, m.kind == bindRO)
	}
	o := m.ov
	if o.Lower != "" {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return fmt.Errorf("create mount point %s: %w", dst, err)
		}
		layers := stageLayers(root, o)
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", layers.Lower, layers.Upper, layers.Work)
		mounted := unix.Mount("overlay", dst, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts+",userxattr") == nil ||
			unix.Mount("overlay", dst, "overlay", unix.MS_NOSUID|unix.MS_NODEV, opts) == nil
		unstageLayers(root)
		if mounted {
			return nil
		}
	}
	// Without overlayfs the sandbox gets the private layer alone: slower
	// (nothing shared to read) but as isolated.
	return bind(o.Upper, dst, false)
}

// layersDir is where an overlay's layers are bound, under the new root,
// while the overlay is mounted: its options in /proc/self/mountinfo then
// name these fixed paths, not the host's (the operator's home, the
// repository's cache key).
const layersDir = ".cogworks-layers"

// stageLayers binds o's layers at fixed paths under root: the lower
// directory, and the upper and work directories through their common
// parent (overlayfs wants both under one mount). A layer it cannot stage
// keeps its host path.
func stageLayers(root string, o Overlay) Overlay {
	dir := filepath.Join(root, layersDir)
	staged := o
	if bind(o.Lower, filepath.Join(dir, "lower"), false) == nil {
		staged.Lower = filepath.Join(dir, "lower")
	}
	if parent := filepath.Dir(o.Upper); parent == filepath.Dir(o.Work) && bind(parent, filepath.Join(dir, "rw"), false) == nil {
		staged.Upper = filepath.Join(dir, "rw", filepath.Base(o.Upper))
		staged.Work = filepath.Join(dir, "rw", filepath.Base(o.Work))
	}
	return staged
}

// unstageLayers detaches the staged layers (a mounted overlay holds its
// own references to them) and removes their mount points.
func unstageLayers(root string) {
	dir := filepath.Join(root, layersDir)
	for _, l := range []string{"lower", "rw"} {
		_ = unix.Unmount(filepath.Join(dir, l), unix.MNT_DETACH)
	}
	_ = os.RemoveAll(dir)
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
