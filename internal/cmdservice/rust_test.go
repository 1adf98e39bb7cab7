package cmdservice

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFindRust: a rustup-installed cargo (outside the system directories
// the sandbox binds) gets its directory and the rustup home bound and
// RUSTUP_HOME named; before, the rust preset's every command failed with
// "cargo: not found" inside the sandbox.
func TestFindRust(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, ".cargo", "bin")
	rustup := filepath.Join(home, ".rustup")
	for _, d := range []string{bin, rustup} {
		assert.NoError(t, os.MkdirAll(d, 0o755))
	}
	assert.NoError(t, os.WriteFile(filepath.Join(bin, "cargo"), []byte("#!/bin/sh\n"), 0o755))
	other := t.TempDir()

	tests := []struct {
		name     string
		environ  []string
		wantDirs []string
		wantEnv  []string
	}{
		{"rustup under HOME", []string{"PATH=" + bin, "HOME=" + home}, []string{bin, rustup}, []string{"RUSTUP_HOME=" + rustup}},
		{"RUSTUP_HOME and toolchain named", []string{"PATH=" + bin, "HOME=/nonexistent", "RUSTUP_HOME=" + other, "RUSTUP_TOOLCHAIN=stable"},
			[]string{bin, other}, []string{"RUSTUP_HOME=" + other, "RUSTUP_TOOLCHAIN=stable"}},
		{"no rustup home", []string{"PATH=" + bin, "HOME=/nonexistent"}, []string{bin}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := findRust(tt.environ)
			assert.Equal(t, tt.wantDirs, rt.dirs)
			assert.Equal(t, tt.wantEnv, rt.env)
			// ~/.cargo itself holds credentials.toml (registry tokens):
			// only its bin directory is bound.
			assert.NotContains(t, rt.dirs, filepath.Join(home, ".cargo"))
		})
	}
}
