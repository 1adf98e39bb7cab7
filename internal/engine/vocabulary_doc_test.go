package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/pipeline"
)

var (
	// specActions is docs/spec.md §3's list of step actions.
	specActions = regexp.MustCompile("`action` is one of `([a-z_|]+)`")
	// specVia is docs/spec.md §4's list of how an approval is given.
	specVia = regexp.MustCompile(`via ([a-z]+(?: / [a-z]+)+)`)
)

// TestVocabularyDocumented (here rather than in docs/, whose test binary
// would otherwise link the engine) checks that where docs/spec.md lists the values
// of a typed string of the snapshot or the step report, the list is the
// one the code writes: they had drifted apart while both were plain
// strings.
func TestVocabularyDocumented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "spec.md"))
	require.NoError(t, err)
	spec := strings.Join(strings.Fields(string(raw)), " ")

	m := specActions.FindStringSubmatch(spec)
	require.NotNil(t, m, "docs/spec.md no longer lists the step actions")
	var actions []string
	for _, a := range StepActions() {
		actions = append(actions, string(a))
	}
	assert.ElementsMatch(t, actions, strings.Split(m[1], "|"), "step actions: code vs docs/spec.md §3")

	m = specVia.FindStringSubmatch(spec)
	require.NotNil(t, m, "docs/spec.md no longer lists the approval sources")
	var via []string
	for _, v := range pipeline.GateApprovalSources() {
		via = append(via, string(v))
	}
	assert.ElementsMatch(t, via, strings.Split(m[1], " / "), "approval sources: code vs docs/spec.md §4")
}
