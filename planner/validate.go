package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Validate checks a plan and returns its sub-work-items in topological
// order. Checks, in order: at least one item; no empty or duplicate ids; at
// most limits.MaxItems items (else *Escalation, ASSERT-PLAN-003); dependencies
// known and acyclic (else an error or *CycleError, ASSERT-PLAN-002); every id
// in interfaceIDs covered by at least one item's Interfaces (else
// *CoverageError listing the missing ids sorted, ASSERT-PLAN-004).
func Validate(plan Plan, limits Limits, interfaceIDs []string) ([]SubWorkItem, error) {
	items := plan.SubWorkItems
	if len(items) == 0 {
		return nil, errors.New("sub_work_items: plan has no sub-work-items (need at least 1)")
	}
	seen := make(map[string]int, len(items))
	var dups []string
	for i, it := range items {
		if strings.TrimSpace(it.ID) == "" {
			return nil, fmt.Errorf("sub_work_items[%d].id: empty id", i)
		}
		if first, ok := seen[it.ID]; ok {
			dups = append(dups, fmt.Sprintf("%q (sub_work_items[%d] and [%d])", it.ID, first, i))
			continue
		}
		seen[it.ID] = i
	}
	if len(dups) > 0 {
		return nil, fmt.Errorf("sub_work_items: duplicate ids %s", strings.Join(dups, ", "))
	}
	if limits.MaxItems > 0 && len(items) > limits.MaxItems {
		return nil, &Escalation{
			Reason:  ReasonTooManyItems,
			Details: fmt.Sprintf("plan has %d sub-work-items, more than max_sub_work_items %d", len(items), limits.MaxItems),
		}
	}
	ordered, err := Order(items)
	if err != nil {
		return nil, err
	}
	if missing := Uncovered(items, interfaceIDs); len(missing) > 0 {
		return nil, &CoverageError{Missing: missing}
	}
	return ordered, nil
}

// Uncovered returns the ids in interfaceIDs that no item lists in its
// Interfaces, sorted and without duplicates.
func Uncovered(items []SubWorkItem, interfaceIDs []string) []string {
	covered := map[string]bool{}
	for _, it := range items {
		for _, id := range it.Interfaces {
			covered[strings.TrimSpace(id)] = true
		}
	}
	var missing []string
	for _, id := range interfaceIDs {
		if !covered[strings.TrimSpace(id)] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	return slices.Compact(missing)
}
