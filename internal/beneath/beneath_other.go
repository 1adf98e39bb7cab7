//go:build !unix

package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Without openat, each element is checked with Lstat before the open:
// racy against a concurrent swap, but the workspace's sandbox (and so
// the code that could swap) exists only on Linux.

func lstatElems(root, clean string) (fs.FileInfo, error) {
	p := root
	var info fs.FileInfo
	for _, e := range strings.Split(clean, "/") {
		p = filepath.Join(p, e)
		var err error
		if info, err = os.Lstat(p); err != nil {
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, errors.New("symbolic link in path")
		}
	}
	return info, nil
}

func openBeneath(root, clean string) (*os.File, error) {
	if _, err := lstatElems(root, clean); err != nil {
		return nil, err
	}
	return os.Open(filepath.Join(root, filepath.FromSlash(clean)))
}

func regularBeneath(root, clean string) error {
	info, err := lstatElems(root, clean)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return ErrNotRegular
	}
	return nil
}
