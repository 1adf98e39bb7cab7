package cmdtest

import (
	"os"
	"os/exec"
	"path/filepath"
)

// LookActionlint finds the actionlint binary on PATH or in ~/go/bin.
func LookActionlint() (string, error) {
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(home, "go", "bin", "actionlint")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// RunCommand runs name with args and returns its combined output.
func RunCommand(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}
