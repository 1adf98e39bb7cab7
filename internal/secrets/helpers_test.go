package secrets

import (
	"os"
	"path/filepath"
)

func readTestdata(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	return string(b), err
}
