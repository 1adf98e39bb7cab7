package beneath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ErrNotRegular is returned for a path that names a directory, a FIFO, a
// device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned by ReadFile for a file larger than its limit.
var ErrTooLarge = errors.New("file too large")

// ErrEscapes is returned for a path that is absolute or leaves the root.
var ErrEscapes = errors.New("path escapes the root")

// ReadFile reads the regular file rel (slash-separated, relative to root)
// without following symbolic links at any element of rel, and at most
// limit bytes: a larger file is ErrTooLarge, so a file that grows while
// it is read cannot make the caller hold more than limit+1 bytes.
func ReadFile(root, rel string, limit int64) ([]byte, error) {
	f, info, err := openRegular(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > limit {
		return nil, fmt.Errorf("read %s beneath %s: %w (%d bytes, limit %d)", rel, root, ErrTooLarge, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s beneath %s: %w", rel, root, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("read %s beneath %s: %w (grew past %d bytes)", rel, root, ErrTooLarge, limit)
	}
	return data, nil
}

// IsRegular reports whether rel beneath root is a regular file reached
// without following a symbolic link at any element of rel. It never opens
// rel for reading: a FIFO or a device is looked at, not opened.
func IsRegular(root, rel string) bool {
	clean, err := cleanRel(rel)
	return err == nil && regularBeneath(root, clean) == nil
}

// openRegular opens rel beneath root read-only and without blocking, and
// returns it, with its fstat, only if it is a regular file.
func openRegular(root, rel string) (*os.File, fs.FileInfo, error) {
	clean, err := cleanRel(rel)
	if err != nil {
		return nil, nil, err
	}
	f, err := openBeneath(root, clean)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s beneath %s: %w", rel, root, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s beneath %s: %w", rel, root, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("open %s beneath %s: %w (%s)", rel, root, ErrNotRegular, info.Mode().Type())
	}
	return f, info, nil
}

// cleanRel cleans a slash-separated relative path and refuses one that is
// empty, absolute or climbs out of the root.
func cleanRel(rel string) (string, error) {
	if rel == "" || path.IsAbs(rel) || strings.ContainsRune(rel, 0) {
		return "", fmt.Errorf("%q: %w", rel, ErrEscapes)
	}
	clean := path.Clean(rel)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q: %w", rel, ErrEscapes)
	}
	return clean, nil
}
