package stagekit

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
)

// ForbiddenImportsText is the one wording of the [constraints]
// forbidden_imports rules that a model reads: the architecture stage
// (which must not propose such a dependency), code generation (which must
// not write one) and the architecture review pass (which blocks one) are
// told the same rule in the same words. It is "" without rules.
func ForbiddenImportsText(rules []config.ForbiddenImport) string {
	if len(rules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Forbidden imports ([constraints] forbidden_imports: code of module `from` must never import or depend on module `to`):\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "- %s must not import %s (from = %q, to = %q)\n", r.From, r.To, r.From, r.To)
	}
	return b.String()
}

// ConstraintItem is the forbidden imports as a context item, kept longest
// when the context is cut; ok is false without rules.
func ConstraintItem(rules []config.ForbiddenImport) (item contextpack.Item, ok bool) {
	text := ForbiddenImportsText(rules)
	if text == "" {
		return contextpack.Item{}, false
	}
	return contextpack.Item{Priority: contextpack.PriorityConstraint, Kind: contextpack.KindConstraint,
		Path: ".cogworks/config.toml [constraints]", Content: text}, true
}
