// Package installdir gives each GitHub App installation served by one
// process its own cache directory, so that one installation's repository
// snapshots and workspaces are neither readable nor writable through
// another's.
//
// A directory is trusted only if this process made it for that
// installation: it is a real directory (not a symlink) with mode 0700,
// owned by the current uid, holding a marker file (mode 0600, same
// owner) that names the installation and a random token drawn when the
// Dirs was created. Anything else found at the path (planted by another
// user or process, left by an earlier run, made for another
// installation) is refused: removed and recreated, or an error when it
// cannot be removed. The check runs before every reuse, not only at
// creation, so a directory swapped in while the process runs is caught
// at the next job.
package installdir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// MarkerName is the marker file inside each installation directory.
const MarkerName = ".cogworks-installation"

// Dirs hands out per-installation directories under Root.
type Dirs struct {
	root  string
	token string
	log   *slog.Logger
	mu    sync.Mutex
}

// New prepares root, created with mode 0700 when missing. A root owned by
// this uid is narrowed to 0700; a root owned by someone else (a
// Kubernetes emptyDir is root's, mode 0777) is not used directly: a
// private "uid-<uid>" directory inside it is, which must then be ours and
// 0700, or a stranger could swap the installation directories inside it.
func New(root string, log *slog.Logger) (*Dirs, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("installation cache root %s: %w", root, err)
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return nil, fmt.Errorf("installation cache root %s: %w", root, err)
	}
	if why := unsafeDir(fi, 0); why != "" {
		root = filepath.Join(root, "uid-"+strconv.Itoa(os.Getuid()))
		if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("installation cache root %s: %w", root, err)
		}
		if fi, err = os.Lstat(root); err != nil {
			return nil, fmt.Errorf("installation cache root %s: %w", root, err)
		}
		if why := unsafeDir(fi, 0); why != "" {
			return nil, fmt.Errorf("installation cache root %s %s", root, why)
		}
	}
	if err := os.Chmod(root, 0o700); err != nil {
		return nil, fmt.Errorf("installation cache root %s: %w", root, err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("installation cache token: %w", err)
	}
	return &Dirs{root: root, token: hex.EncodeToString(b[:]), log: log}, nil
}

// Root is the directory holding the installation directories.
func (d *Dirs) Root() string { return d.root }

// Path returns the verified directory of installation id, creating it
// (or recreating it when what is there fails the check).
func (d *Dirs) Path(id int64) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dir := filepath.Join(d.root, "installation-"+strconv.FormatInt(id, 10))
	why, err := d.check(dir, id)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	case why == "":
		return dir, nil
	default:
		d.log.Warn("installation cache directory refused; recreating it", "dir", dir, "installation", id, "reason", why)
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("installation %d cache %s refused (%s) and cannot be removed: %w", id, dir, why, err)
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("installation %d cache %s: %w", id, dir, err)
	}
	// Mkdir's mode is masked by the umask; 0700 is what the check wants.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("installation %d cache %s: %w", id, dir, err)
	}
	marker := filepath.Join(dir, MarkerName)
	f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("installation %d cache marker %s: %w", id, marker, err)
	}
	_, werr := f.WriteString(d.markerText(id))
	if err := errors.Join(werr, f.Close()); err != nil {
		return "", fmt.Errorf("installation %d cache marker %s: %w", id, marker, err)
	}
	return dir, nil
}

func (d *Dirs) markerText(id int64) string {
	return "installation " + strconv.FormatInt(id, 10) + "\ntoken " + d.token + "\n"
}

// check returns why dir cannot be reused for installation id ("" when it
// can); err is set when dir does not exist (fs.ErrNotExist) or cannot be
// inspected.
func (d *Dirs) check(dir string, id int64) (why string, err error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("installation %d cache %s: %w", id, dir, err)
	}
	if why := unsafeDir(fi, 0o077); why != "" {
		return why, nil
	}
	marker := filepath.Join(dir, MarkerName)
	mi, err := os.Lstat(marker)
	if err != nil {
		return "no marker file " + MarkerName, nil
	}
	if !mi.Mode().IsRegular() || mi.Mode().Perm()&0o077 != 0 || !ownedByMe(mi) {
		return "marker " + MarkerName + " is not a private regular file of this user", nil
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		return "marker unreadable: " + err.Error(), nil
	}
	if string(data) != d.markerText(id) {
		return "marker was not written by this process for this installation", nil
	}
	return "", nil
}

// unsafeDir explains why fi is not a directory this process may trust:
// not a real directory, not ours, or with permission bits in forbidden.
func unsafeDir(fi fs.FileInfo, forbidden fs.FileMode) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case !fi.IsDir():
		return "is not a directory"
	case !ownedByMe(fi):
		return "is owned by another user"
	case fi.Mode().Perm()&forbidden != 0:
		return fmt.Sprintf("has mode %04o (want no %04o bits)", fi.Mode().Perm(), forbidden)
	}
	return ""
}

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
