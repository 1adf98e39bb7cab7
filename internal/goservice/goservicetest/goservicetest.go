// Package goservicetest starts the reference Go domain service for tests.
// It is kept out of package goservice so that the production binaries,
// which import goservice, do not link package testing.
package goservicetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cogworks/cogworks/internal/goservice"
)

// Start serves the reference service on a unix socket in a fresh short
// temporary directory (socket paths are limited to ~107 bytes) and returns
// the socket path. The service is stopped and the directory removed when
// the test ends.
func Start(t testing.TB, opts goservice.Options) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	if err != nil {
		t.Fatalf("create socket dir: %v", err)
	}
	sock := filepath.Join(dir, "go.sock")
	if opts.CacheDir == "" {
		// The tests' repositories are temporary: so are their build cache
		// layers (the host's build cache stays the shared lower layer).
		opts.CacheDir = filepath.Join(dir, "gocache")
	}
	ln, err := goservice.ListenUnix(sock)
	if err != nil {
		_ = os.RemoveAll(dir)
		t.Fatalf("start reference service: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- goservice.Serve(ctx, ln, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stop reference service: %v", err)
		}
		_ = os.RemoveAll(dir)
	})
	return sock
}
