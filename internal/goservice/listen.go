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

// Listen opens the service's listener: a unix socket at socket when it is
// set (see ListenUnix; close removes the socket file), TCP at addr
// otherwise. close releases what Listen made beyond the listener itself.
func Listen(socket, addr string) (ln net.Listener, close func(), err error) {
	if socket == "" {
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("listen tcp %s: %w", addr, err)
		}
		return ln, func() {}, nil
	}
	ln, err = ListenUnix(socket)
	if err != nil {
		return nil, nil, err
	}
	return ln, func() { _ = os.Remove(socket) }, nil
}
