package pipeline

import (
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/classify"
)

// DesignStages are the stages a design-skip leaves out: the
// specification (architecture) and the interface design.
func DesignStages() []Stage { return []Stage{StageArchitecture, StageInterfaceDesign} }

// SkipPolicy says which work items go from intake straight to planning
// ([pipeline] skip_design_for and skip_design_max_complexity).
type SkipPolicy struct {
	// Types are the classification types that may skip design.
	Types []classify.Type
	// MaxComplexity is the highest estimated complexity that still skips
	// (low < medium < high).
	MaxComplexity string
}

var complexityRank = map[string]int{"low": 1, "medium": 2, "high": 3}

// DesignSkip returns the stages c's work item skips under p: the design
// stages for a listed type of at most p.MaxComplexity, else none. A
// safety-affecting item never skips, so the human-gated specification
// stays ahead of its code; an unknown complexity never skips either.
func (p SkipPolicy) DesignSkip(c *classify.Classification) []Stage {
	if c == nil || c.SafetyAffecting || !slices.Contains(p.Types, c.Type) {
		return nil
	}
	have, ok := complexityRank[c.EstimatedScope.Complexity]
	limit := complexityRank[p.MaxComplexity]
	if !ok || have > limit {
		return nil
	}
	return DesignStages()
}

// Skips reports whether the work item's path leaves out stage st.
func (s Snapshot) Skips(st Stage) bool { return slices.Contains(s.Skipped, st) }

// Variant returns m without the skipped stages, in table order so the
// result does not depend on how the list is ordered. No stages yields m;
// a stage m already lacks (a process table that is itself a variant) is
// left as it is.
func (m Machine) Variant(skipped []Stage) (Machine, error) {
	out := m
	for _, st := range stageOrder {
		if !slices.Contains(skipped, st) {
			continue
		}
		if _, ok := out.State(StateForStage(st)); !ok {
			continue
		}
		var err error
		if out, err = out.Skip(st); err != nil {
			return m, fmt.Errorf("variant of %s: %w", m.ID, err)
		}
	}
	for _, st := range skipped {
		if !slices.Contains(stageOrder, st) {
			return m, fmt.Errorf("variant of %s: unknown stage %q", m.ID, st)
		}
	}
	return out, nil
}
