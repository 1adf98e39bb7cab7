package planner

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dominikbraun/graph"
)

// Order returns items in deterministic topological order: every item comes
// after all of its dependencies, and among items whose dependencies are all
// satisfied the smallest id comes first. Unknown dependency ids, duplicate
// or empty ids and cycles are errors; a cycle is a *CycleError. The input
// slice is not modified.
//
// The order is computed with Kahn's algorithm over plain index slices; the
// dependency graph library is only used to report a cycle's path, because
// building it costs several times the ordering itself on large plans.
func Order(items []SubWorkItem) ([]SubWorkItem, error) {
	index := make(map[string]int, len(items))
	for i, it := range items {
		if strings.TrimSpace(it.ID) == "" {
			return nil, fmt.Errorf("sub_work_items[%d]: empty id", i)
		}
		if _, dup := index[it.ID]; dup {
			return nil, fmt.Errorf("sub_work_items[%d]: duplicate id %q", i, it.ID)
		}
		index[it.ID] = i
	}
	// pending[i] counts item i's distinct dependencies not yet emitted;
	// dependents[j] lists the items that depend on item j. seen marks the
	// dependencies already counted for the current item (value i+1), so a
	// dependency listed twice is one edge, as in the graph.
	pending := make([]int, len(items))
	dependents := make([][]int, len(items))
	seen := make([]int, len(items))
	var unknown []string
	for i, it := range items {
		for _, dep := range it.DependsOn {
			j, ok := index[dep]
			if !ok {
				unknown = append(unknown, fmt.Sprintf("%s depends on %q", it.ID, dep))
				continue
			}
			if seen[j] == i+1 {
				continue
			}
			seen[j] = i + 1
			pending[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown dependency ids: %s", strings.Join(unknown, "; "))
	}

	ready := &idHeap{items: items}
	for i := range items {
		if pending[i] == 0 {
			ready.idx = append(ready.idx, i)
		}
	}
	heap.Init(ready)
	out := make([]SubWorkItem, 0, len(items))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, items[i])
		for _, d := range dependents[i] {
			pending[d]--
			if pending[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	if len(out) == len(items) {
		return out, nil
	}
	path, err := findCycle(items, pending)
	if err != nil {
		return nil, err
	}
	return nil, &CycleError{Path: path}
}

// cycleGraph builds the dependency graph (edges follow depends_on: item →
// dependency) of the items Kahn's algorithm could not emit. Only those can
// lie on a cycle, and Order has already checked every id and dependency.
func cycleGraph(items []SubWorkItem, pending []int) (graph.Graph[string, string], map[string]int, error) {
	g := graph.New(graph.StringHash, graph.Directed())
	left := make(map[string]int)
	for i, it := range items {
		if pending[i] == 0 {
			continue
		}
		left[it.ID] = pending[i]
		if err := g.AddVertex(it.ID); err != nil {
			return nil, nil, fmt.Errorf("add sub-work-item %q to graph: %w", it.ID, err)
		}
	}
	for i, it := range items {
		if pending[i] == 0 {
			continue
		}
		for _, dep := range it.DependsOn {
			if _, ok := left[dep]; !ok {
				continue
			}
			err := g.AddEdge(it.ID, dep)
			if err != nil && !errors.Is(err, graph.ErrEdgeAlreadyExists) {
				return nil, nil, fmt.Errorf("add dependency %s → %s: %w", it.ID, dep, err)
			}
		}
	}
	return g, left, nil
}

// findCycle returns a cycle among the items Kahn's algorithm could not
// emit (pending > 0). It picks the strongly connected component containing
// the smallest such id and returns the shortest cycle through that id,
// following successors in id order, so the report is deterministic.
func findCycle(items []SubWorkItem, pendingByIndex []int) ([]string, error) {
	g, pending, err := cycleGraph(items, pendingByIndex)
	if err != nil {
		return nil, err
	}
	deps, err := g.AdjacencyMap()
	if err != nil {
		return nil, fmt.Errorf("read dependency graph: %w", err)
	}
	sccs, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		return nil, fmt.Errorf("find dependency cycle: %w", err)
	}
	var start string
	var members map[string]bool
	for _, scc := range sccs {
		cyclic := len(scc) > 1
		if len(scc) == 1 {
			_, self := deps[scc[0]][scc[0]]
			cyclic = self
		}
		if !cyclic {
			continue
		}
		m := slices.Min(scc)
		if members == nil || m < start {
			start = m
			members = make(map[string]bool, len(scc))
			for _, id := range scc {
				members[id] = true
			}
		}
	}
	if members == nil || pending[start] == 0 {
		return nil, errors.New("dependency graph has no topological order but no cycle was found")
	}
	// BFS from start back to start inside the component.
	parent := map[string]string{}
	queue := []string{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, next := range sortedKeys(deps[cur]) {
			if !members[next] {
				continue
			}
			if next == start {
				path := []string{cur}
				for p := cur; p != start; {
					p = parent[p]
					path = append(path, p)
				}
				slices.Reverse(path)
				return append(path, start), nil
			}
			if _, seen := parent[next]; seen {
				continue
			}
			parent[next] = cur
			queue = append(queue, next)
		}
	}
	return nil, errors.New("dependency cycle component has no cycle through its smallest id")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// idHeap is a min-heap of item indexes ordered by item id.
type idHeap struct {
	items []SubWorkItem
	idx   []int
}

func (h *idHeap) Len() int           { return len(h.idx) }
func (h *idHeap) Less(i, j int) bool { return h.items[h.idx[i]].ID < h.items[h.idx[j]].ID }
func (h *idHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *idHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *idHeap) Pop() any {
	n := len(h.idx)
	x := h.idx[n-1]
	h.idx = h.idx[:n-1]
	return x
}
