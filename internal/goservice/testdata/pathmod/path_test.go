package pathmod

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCallerFileExists fails under -trimpath, where runtime.Caller names
// "example.com/pathmod/path_test.go" instead of a file that exists.
func TestCallerFileExists(t *testing.T) {
	file, _ := Here()
	if !filepath.IsAbs(file) {
		t.Fatalf("Here() file = %q, want an absolute path", file)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("stat the caller's source: %v", err)
	}
}
