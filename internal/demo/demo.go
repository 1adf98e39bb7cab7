// Package demo holds the data `cogworks demo` runs on: a sample Go
// repository (with a safety registry, an interface registry entry and a
// held-out scenario), the work item to file against it, and the scripted
// LLM answers that take it through the whole pipeline offline.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:testdata/sample
var sample embed.FS

// Repository names the simulated repository.
const (
	Owner = "acme"
	Name  = "vehicle"
)

// Issue is the work item the demo files.
const (
	IssueTitle = "Publish brake pressure telemetry on the CAN bus"
	IssueBody  = `We need brake pressure readings on the vehicle CAN bus.

- Encode a brake pressure reading (kPa) as a CAN frame with id 0x120 and decode it back.
- Publish at most every 10 ms so telemetry stays within the CAN bus contract (SWD-IF-CAN-01).

Touches the telemetry module only.`
)

// Files returns the sample repository's files keyed by slash path.
func Files() (map[string]string, error) {
	root, err := fs.Sub(sample, "testdata/sample")
	if err != nil {
		return nil, fmt.Errorf("demo sample: %w", err)
	}
	files := map[string]string{}
	err = fs.WalkDir(root, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, path)
		if err != nil {
			return err
		}
		// The sample's go.mod is stored renamed: a go.mod would make the
		// directory a separate module that cannot be embedded.
		if path == "go.mod.sample" {
			path = "go.mod"
		}
		files[path] = string(data)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read demo sample: %w", err)
	}
	return files, nil
}

// WriteWorkspace writes the sample repository into dir (the local
// checkout CogWorks and the domain service read).
func WriteWorkspace(dir string, files map[string]string) error {
	for path, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("write workspace: %w", err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return fmt.Errorf("write workspace: %w", err)
		}
	}
	return nil
}
