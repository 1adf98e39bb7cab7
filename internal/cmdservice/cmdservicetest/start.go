// Package cmdservicetest starts the built-in command domain service for
// tests, kept out of package cmdservice so that production binaries do
// not link package testing.
package cmdservicetest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/cogworks/cogworks/internal/cmdservice"
)

// Start serves d on a unix socket in a fresh short temporary directory
// and returns the socket path; the service stops when the test ends.
func Start(t testing.TB, d cmdservice.Domain, opts cmdservice.Options) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	if err != nil {
		t.Fatalf("create socket dir: %v", err)
	}
	sock := filepath.Join(dir, "cmd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("listen %s: %v", sock, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmdservice.Serve(ctx, ln, d, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop command service: %v", err)
		}
		_ = os.RemoveAll(dir)
	})
	return sock
}

// RequirePytest skips t unless a python with pytest is installed (the
// e2e gate covers the sandbox; this one the tool the test drives).
func RequirePytest(t testing.TB) {
	t.Helper()
	if !cmdservice.PytestAvailable(context.Background(), os.Environ()) {
		t.Skip("needs a python with pytest (Debian: apt-get install python3-pytest)")
	}
}
