package demo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/llm"
)

// TestSampleScripts: every sample loads with its files, and its scripted
// code generation answers the broken change until the prompt carries the
// toolchain's report, then the fix — the contract the e2e tests and
// `demo --sample` rely on.
func TestSampleScripts(t *testing.T) {
	require.Equal(t, []string{"python", "rust", "typescript"}, SampleNames())
	for _, name := range SampleNames() {
		t.Run(name, func(t *testing.T) {
			s, err := LoadSample(name)
			require.NoError(t, err)
			require.Contains(t, s.Files, s.FixedPath, "the fix edits a file the sample has")
			assert.NotEmpty(t, s.Tool)
			p := s.Provider()
			ask := func(prompt string) string {
				resp, err := p.Complete(context.Background(), llm.Request{Template: "code_generation", Messages: []llm.Message{{Role: "user", Content: prompt}}})
				require.NoError(t, err)
				var out struct {
					Edits []edit `json:"edits"`
				}
				require.NoError(t, json.Unmarshal(resp.Content, &out))
				var news string
				for _, e := range out.Edits {
					require.Contains(t, s.Files[e.Path], e.Old, "an edit's old text occurs in %s", e.Path)
					news += e.New
				}
				return news
			}
			assert.NotContains(t, ask("implement the fix"), s.Fixed)
			assert.Zero(t, p.Answered("code_generation", s.Feedback))
			assert.Contains(t, ask("previous attempt: "+s.Feedback), s.Fixed)
			assert.Equal(t, 1, p.Answered("code_generation", s.Feedback))
		})
	}
}

func TestNewSetup(t *testing.T) {
	for _, tt := range []struct {
		sample, repo string
		isSample     bool
	}{{"", Name, false}, {"go", Name, false}, {"python", "inventory", true}} {
		s, err := NewSetup(tt.sample, false)
		require.NoError(t, err)
		assert.Equal(t, tt.repo, s.Name)
		assert.Equal(t, tt.isSample, s.Sample != nil)
		assert.NotNil(t, s.Script)
	}
	_, err := NewSetup("cobol", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "python")
}
