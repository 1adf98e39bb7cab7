package planner

import (
	"strings"
)

// Plan is the planning stage's structured LLM output.
type Plan struct {
	SubWorkItems []SubWorkItem `json:"sub_work_items"`
}

// SubWorkItem is one implementation task of a plan.
type SubWorkItem struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
	// Symbols names the declarations the item changes or uses, e.g.
	// "Command.ExecuteC" (localisation: the planner sees the symbol map).
	Symbols    []string `json:"symbols"`
	Interfaces []string `json:"interfaces"`
	Tests      string   `json:"tests"`
	DependsOn  []string `json:"depends_on"`
}

// Limits are the configured plan limits. A MaxItems of zero or less means
// no limit (the config layer supplies the default of 10).
type Limits struct {
	MaxItems int
}

// ReasonTooManyItems is the escalation.Error Code for a plan over Limits.MaxItems.
const ReasonTooManyItems = "too_many_sub_work_items"

// CycleError reports a dependency cycle. Path lists item ids along
// depends_on edges and repeats the first id at the end.
type CycleError struct {
	Path []string
}

// Error implements error; the message is the path, e.g.
// "dependency cycle: A → B → C → A".
func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Path, " → ")
}

// CoverageError reports interfaces from the interface-design stage that no
// sub-work-item covers.
type CoverageError struct {
	Missing []string
}

// Error implements error.
func (e *CoverageError) Error() string {
	return "interfaces not covered by any sub-work-item: " + strings.Join(e.Missing, ", ")
}
