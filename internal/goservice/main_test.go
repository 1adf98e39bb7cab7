package goservice

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// serveSocketEnv makes the test binary serve the domain service on the
// unix socket it names instead of running the tests: the terminal
// injection red-team test starts it as a child whose controlling terminal
// is a pty, as a developer's shell would start `serve`.
const serveSocketEnv = "COGWORKS_GOSERVICE_TEST_SERVE_SOCKET"

// TestMain lets the test binary serve as the sandbox init of the go
// commands the tests run (and as a service process, see serveSocketEnv).
func TestMain(m *testing.M) {
	sandbox.Main()
	if sock := os.Getenv(serveSocketEnv); sock != "" {
		os.Exit(serveForTest(sock))
	}
	os.Exit(m.Run())
}

// serveForTest serves the domain service on sock until SIGTERM.
func serveForTest(sock string) int {
	ln, err := ListenUnix(sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	opts := Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: time.Minute}, CacheDir: filepath.Join(filepath.Dir(sock), "gocache")}
	if err := Serve(ctx, ln, opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
