package goservice

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
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

// StartForTest serves the reference service on a unix socket in a fresh
// short temporary directory (socket paths are limited to ~107 bytes) and
// returns the socket path. The service is stopped and the directory removed
// when the test ends.
func StartForTest(t testing.TB, opts Options) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	if err != nil {
		t.Fatalf("create socket dir: %v", err)
	}
	sock := filepath.Join(dir, "go.sock")
	ln, err := ListenUnix(sock)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("start reference service: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop reference service: %v", err)
		}
		_ = os.RemoveAll(dir)
	})
	return sock
}
