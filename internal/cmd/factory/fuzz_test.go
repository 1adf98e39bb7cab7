package factory_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/stretchr/testify/require"
)

// FuzzParseEvent feeds arbitrary bytes to the GitHub event payload parser
// (GITHUB_EVENT_PATH; its issue and comment text is written by anyone).
// Properties: no panic; a target that is not ignored names a positive
// work item in a well-formed repository.
func FuzzParseEvent(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	require.NoError(f, err)
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"action":"opened","issue":{"number":-1},"repository":{"full_name":"a/b"}}`))
	f.Add([]byte(`{"pull_request":{"number":3,"head":{"ref":"cogworks/99999999999999999999999/x"}},"repository":{"full_name":"a/b"}}`))
	f.Add([]byte(`{"issue":{"number":1},"repository":{"full_name":"../../etc"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		target, err := factory.ParseEvent(data)
		if err != nil || target.Ignore != "" {
			return
		}
		require.Positive(t, target.Issue)
		require.NotEmpty(t, target.Repo.Owner)
		require.NotEmpty(t, target.Repo.Name)
	})
}
