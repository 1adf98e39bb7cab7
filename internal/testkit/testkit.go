package testkit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WriteTree writes files (slash-separated paths relative to dir → content)
// under dir, creating their directories.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// UpdateEnv is the environment variable that, set to "1", makes Golden
// rewrite its files.
const UpdateEnv = "UPDATE"

// Golden compares got with the file at path, rewriting the file first when
// UPDATE=1.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if os.Getenv(UpdateEnv) == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file %s missing; run with UPDATE=1", path)
	assert.Equal(t, string(want), got, "%s differs; run with UPDATE=1 and review the diff", path)
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (a logger and a
// child's output copier, a runner's goroutines).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// SleepRecorder stands in for an injectable sleep: it records each wait
// instead of waiting.
type SleepRecorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d and returns at once, with ctx's error as a real sleep
// would.
func (s *SleepRecorder) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// Recorded returns a copy of the waits so far, in order (nil when none).
func (s *SleepRecorder) Recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}
