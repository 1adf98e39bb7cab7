package testkit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteTreeCreatesDirectories(t *testing.T) {
	dir := t.TempDir()
	WriteTree(t, dir, map[string]string{"a/b/c.txt": "c", "d.txt": "d"})
	got, err := os.ReadFile(filepath.Join(dir, "a", "b", "c.txt"))
	require.NoError(t, err)
	assert.Equal(t, "c", string(got))
	got, err = os.ReadFile(filepath.Join(dir, "d.txt"))
	require.NoError(t, err)
	assert.Equal(t, "d", string(got))
}

// TestGoldenUpdatesOnlyWithUpdate1 pins the one UPDATE rule: "1"
// rewrites (creating the directory), any other value only compares.
func TestGoldenUpdatesOnlyWithUpdate1(t *testing.T) {
	tests := []struct {
		update      string
		wantWritten bool
	}{
		{"1", true},
		{"", false},
		{"true", false},
		{"0", false},
	}
	for _, tt := range tests {
		t.Run("UPDATE="+tt.update, func(t *testing.T) {
			t.Setenv(UpdateEnv, tt.update)
			path := filepath.Join(t.TempDir(), "sub", "x.golden")
			WriteTree(t, filepath.Dir(path), map[string]string{"x.golden": "old\n"})
			inner := &failRecorder{TB: t}
			Golden(inner, path, "new\n")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if tt.wantWritten {
				assert.Equal(t, "new\n", string(got))
				assert.False(t, inner.failed, "a rewritten golden file matches")
			} else {
				assert.Equal(t, "old\n", string(got))
				assert.True(t, inner.failed, "a differing golden file fails")
			}
		})
	}
}

func TestGoldenCreatesItsDirectory(t *testing.T) {
	t.Setenv(UpdateEnv, "1")
	path := filepath.Join(t.TempDir(), "new", "dir", "x.golden")
	Golden(t, path, "x")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
}

func TestSyncBufferTakesConcurrentWrites(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("x"))
			}
		})
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("x", 800), b.String())
}

func TestSleepRecorderRecordsAndHonoursTheContext(t *testing.T) {
	var s SleepRecorder
	assert.Nil(t, s.Recorded())
	require.NoError(t, s.Sleep(context.Background(), time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Sleep(ctx, 2*time.Second), context.Canceled)
	got := s.Recorded()
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, got)
	got[0] = 0
	assert.Equal(t, time.Second, s.Recorded()[0], "Recorded returns a copy")
}

// failRecorder records a failure instead of failing the test, so a test can
// check that Golden fails.
type failRecorder struct {
	testing.TB
	failed bool
}

func (f *failRecorder) Helper() {}

func (f *failRecorder) Errorf(string, ...any) { f.failed = true }
