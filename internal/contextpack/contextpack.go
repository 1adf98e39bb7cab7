package contextpack

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Priorities of context items (docs/spec.md §8); a lower number is more important.
const (
	// PriorityInterface is the current SWI's interface definitions and the
	// current content of the files it edits: never dropped.
	PriorityInterface = 1
	// PriorityDependency is the output of directly depended-upon SWIs.
	PriorityDependency = 2
	// PriorityConstraint is architectural constraints.
	PriorityConstraint = 3
	// PriorityStandard is coding standards.
	PriorityStandard = 4
	// PriorityOther is everything else, ranked by Distance.
	PriorityOther = 5
)

// ItemKind describes what a context item is; it orders items of one
// priority and tells code generation which items it may focus.
type ItemKind string

// Context item kinds.
const (
	// KindInterface is an interface definition the code must honour.
	KindInterface ItemKind = "interface"
	// KindDependencyOutput is code a dependency sub-work-item committed.
	KindDependencyOutput ItemKind = "dependency-output"
	// KindConstraint is a cross-domain constraint.
	KindConstraint ItemKind = "constraint"
	// KindStandard is a coding standard of the repository.
	KindStandard ItemKind = "standard"
	// KindFileToEdit is a planned file that already exists, sent whole.
	KindFileToEdit ItemKind = "file-to-edit"
	// KindSkeleton is a file's declarations without bodies.
	KindSkeleton ItemKind = "skeleton"
	// KindFile is any other repository file.
	KindFile ItemKind = "file"
)

// Item is one piece of context.
type Item struct {
	// Priority is 1 (most important, never dropped) to 5.
	Priority int
	// Kind describes the item.
	Kind    ItemKind
	Path    string
	Content string
	// Distance is the import-graph distance to the affected modules; it
	// orders priority-5 items (farther ones are dropped first).
	Distance int
}

// Pack is an assembled context package.
type Pack struct {
	// Items are the kept items, most important first: by priority, then
	// distance, then path.
	Items []Item
	// Dropped are the removed items in the order they were dropped.
	Dropped []Item
	// Tokens is the token count of the kept items.
	Tokens int
}

// OverflowError reports that the priority-1 items alone exceed the window;
// they are never dropped, so no pack can be assembled.
type OverflowError struct {
	Tokens int // tokens of the priority-1 items
	Window int
	Paths  []string
}

// Error implements error.
func (e *OverflowError) Error() string {
	return fmt.Sprintf("context: priority-1 items (%s) need %d tokens, more than the %d-token window",
		strings.Join(e.Paths, ", "), e.Tokens, e.Window)
}

// ItemTokens is the token count of an item: its path plus its content.
func ItemTokens(it Item, count func(string) int) int {
	return count(it.Path) + count(it.Content)
}

// Assemble fits items into window tokens as counted by count. When they do
// not fit, items are dropped lowest priority first (5 before 4 …), within a
// priority farther Distance first, then larger token count first, then by
// path descending; priority-1 items are never dropped (ASSERT-CODE-006) and
// an *OverflowError is returned when they alone exceed the window. The
// result depends only on the multiset of items, not their order.
func Assemble(items []Item, window int, count func(string) int) (Pack, error) {
	if count == nil {
		return Pack{}, errors.New("context: no token counter")
	}
	if window < 0 {
		return Pack{}, fmt.Errorf("context: negative window %d", window)
	}
	type sized struct {
		Item
		tokens int
	}
	all := make([]sized, len(items))
	total := 0
	for i, it := range items {
		if it.Priority < PriorityInterface || it.Priority > PriorityOther {
			return Pack{}, fmt.Errorf("context item %q: priority %d out of range 1..5", it.Path, it.Priority)
		}
		all[i] = sized{Item: it, tokens: ItemTokens(it, count)}
		total += all[i].tokens
	}
	// Keep order: most important first. Dropping walks it from the end.
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Priority != b.Priority {
			return a.Priority < b.Priority
		}
		if a.Distance != b.Distance {
			return a.Distance < b.Distance
		}
		if a.tokens != b.tokens {
			return a.tokens < b.tokens
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Content < b.Content
	})
	keep := len(all)
	for keep > 0 && total > window && all[keep-1].Priority > PriorityInterface {
		keep--
		total -= all[keep].tokens
	}
	if total > window {
		e := &OverflowError{Tokens: total, Window: window}
		for _, s := range all[:keep] {
			e.Paths = append(e.Paths, s.Path)
		}
		return Pack{}, e
	}
	p := Pack{Tokens: total}
	for _, s := range all[:keep] {
		p.Items = append(p.Items, s.Item)
	}
	for i := len(all) - 1; i >= keep; i-- {
		p.Dropped = append(p.Dropped, all[i].Item)
	}
	return p, nil
}

// ExcludeScenarios returns paths without any path inside scenarioDir (the
// holdout set, ASSERT-SCEN-002). Paths are compared after cleaning
// (slashes, "./", "..") so no spelling of a scenario path slips through; an
// empty scenarioDir defaults to ".cogworks/scenarios".
func ExcludeScenarios(paths []string, scenarioDir string) []string {
	dir := cleanRel(scenarioDir)
	if dir == "" || dir == "." {
		dir = DefaultScenarioDir
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !within(cleanRel(p), dir) {
			out = append(out, p)
		}
	}
	return out
}

// ExcludeScenarioItems returns items without any item whose Path is inside
// scenarioDir.
func ExcludeScenarioItems(items []Item, scenarioDir string) []Item {
	dir := cleanRel(scenarioDir)
	if dir == "" || dir == "." {
		dir = DefaultScenarioDir
	}
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if !within(cleanRel(it.Path), dir) {
			out = append(out, it)
		}
	}
	return out
}

// DefaultScenarioDir is where scenarios live unless configured otherwise.
const DefaultScenarioDir = ".cogworks/scenarios"

// cleanRel normalises a repository-relative path.
func cleanRel(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
