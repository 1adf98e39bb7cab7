//go:build unix

package beneath

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openFlags open the last element: read-only, never blocking (a FIFO
// without a writer opens at once), never following a link there, never
// becoming the controlling terminal.
const openFlags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NOCTTY

// walkParent opens root and then each directory element of clean with
// O_NOFOLLOW|O_DIRECTORY, one openat at a time, and returns the last
// directory's descriptor (the caller closes it) and the last element.
// clean has no "." or ".." elements (see cleanRel), so every step stays
// beneath root.
func walkParent(root, clean string) (int, string, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", fmt.Errorf("open root: %w", err)
	}
	elems := strings.Split(clean, "/")
	for _, e := range elems[:len(elems)-1] {
		next, err := unix.Openat(fd, e, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		_ = unix.Close(fd)
		if err != nil {
			return -1, "", fmt.Errorf("open directory %s: %w", e, err)
		}
		fd = next
	}
	return fd, elems[len(elems)-1], nil
}

// openWalk opens clean beneath root with walkParent and openFlags.
func openWalk(root, clean string) (*os.File, error) {
	dir, last, err := walkParent(root, clean)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, last, openFlags, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), clean), nil
}

// regularWalk checks with fstatat(AT_SYMLINK_NOFOLLOW) that clean beneath
// root is a regular file.
func regularWalk(root, clean string) error {
	dir, last, err := walkParent(root, clean)
	if err != nil {
		return err
	}
	defer unix.Close(dir)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, last, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return ErrNotRegular
	}
	return nil
}
