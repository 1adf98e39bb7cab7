package codegen_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// overflowAnswer is the provider's refusal of a prompt over the model's
// window, with Anthropic's figures.
func overflowAnswer(prompt, limit int) llm.ScriptedAnswer {
	return llm.ScriptedAnswer{Err: &llm.ContextOverflowError{Provider: "anthropic", PromptTokens: prompt, Limit: limit,
		Err: &llm.ProviderError{Provider: "anthropic", Status: 400, Kind: llm.KindContextOverflow,
			Message: "prompt is too long: 215000 tokens > 200000 maximum"}}}
}

func userText(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
	}
	return b.String()
}

// TestCodeGenerationRepacksOnOverflow: a prompt the provider refuses as
// over its context window is repacked once with the smaller budget the
// refusal's figures give — the module files and standards go, the
// interface stays — and sent again. Before, the refusal ended the stage
// with no second request.
func TestCodeGenerationRepacksOnOverflow(t *testing.T) {
	t.Parallel()
	f := stagetest.NewBuildFixture(t, stagetest.StartGoService(t), []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Snap.Classification = &classify.Classification{AffectedModules: []string{"widgets"}}
	f.Script.AddAnswer("code_generation", overflowAnswer(215000, 200000))
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	reqs := f.Script.Requests()
	require.Len(t, reqs, 2, "refused once, repacked once")
	first, second := userText(reqs[0]), userText(reqs[1])
	assert.Contains(t, first, "Package widgets holds small widgets")
	assert.NotContains(t, second, "Package widgets holds small widgets", "the repack drops the module's other files")
	assert.Less(t, len(second), len(first))
	assert.Contains(t, second, "Counter", "the interface is never dropped")
}

// TestCodeGenerationOverflowTwiceEscalatesWithFigures: refused again after
// the repack, the stage escalates with both refusals' figures after two
// requests, not a third.
func TestCodeGenerationOverflowTwiceEscalatesWithFigures(t *testing.T) {
	t.Parallel()
	f := stagetest.NewBuildFixture(t, stagetest.StartGoServiceless{}, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Snap.Classification = &classify.Classification{AffectedModules: []string{"widgets"}}
	f.Script.AddAnswer("code_generation", overflowAnswer(215000, 200000))
	f.Script.AddAnswer("code_generation", overflowAnswer(201000, 200000))

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	assert.Equal(t, contextpack.CodeContextOverflow, esc.Code)
	assert.Contains(t, esc.Reason, "215000 tokens, the model takes 200000")
	assert.Contains(t, esc.Reason, "201000 tokens, the model takes 200000")
	assert.Contains(t, esc.Reason, "repacked from")
	assert.Len(t, f.Script.Requests(), 2)
}
