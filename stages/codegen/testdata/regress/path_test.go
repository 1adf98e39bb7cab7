package regress

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCallerFileExists is path-sensitive, like testify's mock package: it
// needs the real path of its own source file, which -trimpath removes.
func TestCallerFileExists(t *testing.T) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("runtime.Caller(0) found no caller")
	}
	if !filepath.IsAbs(file) {
		t.Fatalf("runtime.Caller(0) file = %q, want an absolute path", file)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("stat the test's own source: %v", err)
	}
}
