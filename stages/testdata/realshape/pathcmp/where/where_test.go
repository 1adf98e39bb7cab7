package where

import (
	"path/filepath"
	"testing"
)

// The path a test reports must be the file on disk: testify's mock package
// compares such paths, and -trimpath rewrites them.
func TestHereIsTheFileOnDisk(t *testing.T) {
	if f := Here(); !filepath.IsAbs(f) {
		t.Fatalf("Here() = %q, want an absolute path", f)
	}
}
