package domaintest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// PythonService is the path of testdata/pyservice/service.py: a domain
// service written in Python from docs/domain-services.md alone (standard
// library only, HTTP on a unix socket, Extension API 1.4), as a user
// outside CogWorks writes one.
func PythonService(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("locate package domaintest")
	}
	return filepath.Join(filepath.Dir(file), "testdata", "pyservice", "service.py")
}

// StartPython starts PythonService with python3 on a unix socket in a
// fresh short directory and returns the socket path; the process is
// killed when the test ends. The test is skipped without python3.
func StartPython(t testing.TB) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("the Python domain service needs python3")
	}
	dir, err := os.MkdirTemp("", "cwpy")
	if err != nil {
		t.Fatalf("create socket dir: %v", err)
	}
	sock := filepath.Join(dir, "py.sock")
	cmd := exec.Command(py, PythonService(t), "--socket", sock)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("python service stdout: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start python service: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	})
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if !strings.HasPrefix(line, "listening") {
			t.Fatalf("python service did not start: %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("python service did not start within 30s")
	}
	return sock
}
