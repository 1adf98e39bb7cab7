package stagekit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
)

func TestForbiddenImportsText(t *testing.T) {
	t.Parallel()
	assert.Empty(t, ForbiddenImportsText(nil))
	got := ForbiddenImportsText([]config.ForbiddenImport{{From: "brake", To: "telemetry"}, {From: "ui", To: "db"}})
	assert.Equal(t, "Forbidden imports ([constraints] forbidden_imports: code of module `from` must never import or depend on module `to`):\n"+
		"- brake must not import telemetry (from = \"brake\", to = \"telemetry\")\n"+
		"- ui must not import db (from = \"ui\", to = \"db\")\n", got)
}

func TestConstraintItemIsKeptLongest(t *testing.T) {
	t.Parallel()
	_, ok := ConstraintItem(nil)
	assert.False(t, ok, "no rules, no item")
	rules := []config.ForbiddenImport{{From: "brake", To: "telemetry"}}
	item, ok := ConstraintItem(rules)
	require.True(t, ok)
	assert.Equal(t, contextpack.PriorityConstraint, item.Priority)
	assert.Equal(t, ForbiddenImportsText(rules), item.Content)
}
