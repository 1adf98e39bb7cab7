package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/escalation"
)

// MaxIDLength is the longest sub-work-item id a plan may use.
const MaxIDLength = 64

// CheckID reports whether id is a valid sub-work-item id: 1 to MaxIDLength
// ASCII letters and digits, single '.', '_' or '-' allowed between them
// (e.g. "swi-1", "TEL-BRAKE-CODEC"). Ids come from the LLM and end up in
// hidden markers ("<!-- cogworks:swi=N/<id> -->"), comment keys, labels
// and audit tables, so only this plain shape is accepted: it cannot close
// a marker, spell another one or break a Markdown table. The error says
// what is allowed, for the LLM to correct.
func CheckID(id string) error {
	const rule = "an id is 1 to 64 ASCII letters or digits, optionally joined by single '.', '_' or '-' (e.g. \"swi-1\")"
	if id == "" {
		return errors.New("empty id")
	}
	if len(id) > MaxIDLength {
		return fmt.Errorf("id %q is invalid: %s", id, rule)
	}
	prevSep := true // no separator first
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			prevSep = false
		case c == '.' || c == '_' || c == '-':
			if prevSep {
				return fmt.Errorf("id %q is invalid: %s", id, rule)
			}
			prevSep = true
		default:
			return fmt.Errorf("id %q is invalid: %s", id, rule)
		}
	}
	if prevSep {
		return fmt.Errorf("id %q is invalid: %s", id, rule)
	}
	return nil
}

// Validate checks a plan and returns its sub-work-items in topological
// order. Checks, in order: at least one item; every id well-formed (see
// CheckID; all bad ids are reported together); no empty or duplicate ids; at
// most limits.MaxItems items (else *escalation.Error, ASSERT-PLAN-003); dependencies
// known and acyclic (else an error or *CycleError, ASSERT-PLAN-002); every id
// in interfaceIDs covered by at least one item's Interfaces (else
// *CoverageError listing the missing ids sorted, ASSERT-PLAN-004).
func Validate(plan Plan, limits Limits, interfaceIDs []string) ([]SubWorkItem, error) {
	items := plan.SubWorkItems
	if len(items) == 0 {
		return nil, errors.New("sub_work_items: plan has no sub-work-items (need at least 1)")
	}
	var bad []error
	for i, it := range items {
		if err := CheckID(it.ID); err != nil {
			bad = append(bad, fmt.Errorf("sub_work_items[%d].id: %w", i, err))
		}
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
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
		return nil, &escalation.Error{
			Code:   ReasonTooManyItems,
			Reason: fmt.Sprintf("plan has %d sub-work-items, more than max_sub_work_items %d", len(items), limits.MaxItems),
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
