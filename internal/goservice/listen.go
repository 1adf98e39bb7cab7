package goservice

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"
)

// ListenUnix listens on a unix socket at path. A stale socket file left by a
// previous process is removed first; a socket something still answers on is
// an error.
func ListenUnix(path string) (net.Listener, error) {
	info, err := os.Lstat(path)
	switch {
	case err == nil && info.Mode()&fs.ModeSocket == 0:
		return nil, fmt.Errorf("listen unix %s: path exists and is not a socket", path)
	case err == nil:
		conn, dialErr := net.DialTimeout("unix", path, time.Second)
		if dialErr == nil {
			conn.Close()
			return nil, fmt.Errorf("listen unix %s: another process is serving on it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("stat socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen unix %s: %w", path, err)
	}
	return ln, nil
}
