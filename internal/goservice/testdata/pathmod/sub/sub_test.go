package sub

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestDirIsStable prints the directory the test was compiled in, which
// must be the same for every request.
func TestDirIsStable(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	t.Logf("compiled-in dir: %s", filepath.Dir(file))
}
