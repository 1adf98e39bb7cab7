package beneath

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// resolve confines openat2's whole path walk: beneath the root, no
// symbolic link at any element, no /proc magic link.
const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openat2 opens clean beneath root with flags in one confined walk. It
// reports ok=false when the kernel (before 5.6) or a seccomp filter
// refuses openat2 itself, so that the caller walks instead.
func openat2(root, clean string, flags uint64) (fd int, ok bool, err error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, true, err
	}
	defer unix.Close(dir)
	fd, err = unix.Openat2(dir, clean, &unix.OpenHow{Flags: flags, Resolve: resolve})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, false, nil
	}
	return fd, true, err
}

func openBeneath(root, clean string) (*os.File, error) {
	fd, ok, err := openat2(root, clean, openFlags)
	if !ok {
		return openWalk(root, clean)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), clean), nil
}

func regularBeneath(root, clean string) error {
	fd, ok, err := openat2(root, clean, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if !ok {
		return regularWalk(root, clean)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return ErrNotRegular
	}
	return nil
}
