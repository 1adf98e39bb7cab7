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
func Order(items []SubWorkItem) ([]SubWorkItem, error) {
	byID := make(map[string]SubWorkItem, len(items))
	g := graph.New(graph.StringHash, graph.Directed())
	for i, it := range items {
		if strings.TrimSpace(it.ID) == "" {
			return nil, fmt.Errorf("sub_work_items[%d]: empty id", i)
		}
		if _, dup := byID[it.ID]; dup {
			return nil, fmt.Errorf("sub_work_items[%d]: duplicate id %q", i, it.ID)
		}
		byID[it.ID] = it
		if err := g.AddVertex(it.ID); err != nil {
			return nil, fmt.Errorf("add sub-work-item %q to graph: %w", it.ID, err)
		}
	}
	// deps and dependents are kept alongside the graph for Kahn's algorithm:
	// reading them back through AdjacencyMap/PredecessorMap would allocate a
	// map per vertex and dominate the cost on large plans.
	deps := make(map[string][]string, len(items))
	dependents := make(map[string][]string, len(items))
	var unknown []string
	for _, it := range items {
		for _, dep := range it.DependsOn {
			if _, ok := byID[dep]; !ok {
				unknown = append(unknown, fmt.Sprintf("%s depends on %q", it.ID, dep))
				continue
			}
			// Edges follow depends_on: item → dependency.
			err := g.AddEdge(it.ID, dep)
			if errors.Is(err, graph.ErrEdgeAlreadyExists) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("add dependency %s → %s: %w", it.ID, dep, err)
			}
			deps[it.ID] = append(deps[it.ID], dep)
			dependents[dep] = append(dependents[dep], it.ID)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown dependency ids: %s", strings.Join(unknown, "; "))
	}

	pending := make(map[string]int, len(items))
	ready := &idHeap{}
	for _, it := range items {
		pending[it.ID] = len(deps[it.ID])
		if pending[it.ID] == 0 {
			*ready = append(*ready, it.ID)
		}
	}
	heap.Init(ready)
	out := make([]SubWorkItem, 0, len(items))
	for ready.Len() > 0 {
		id := heap.Pop(ready).(string)
		out = append(out, byID[id])
		for _, d := range dependents[id] {
			pending[d]--
			if pending[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	if len(out) == len(items) {
		return out, nil
	}
	path, err := findCycle(g, pending)
	if err != nil {
		return nil, err
	}
	return nil, &CycleError{Path: path}
}

// findCycle returns a cycle among the items Kahn's algorithm could not
// emit (pending > 0). It picks the strongly connected component containing
// the smallest such id and returns the shortest cycle through that id,
// following successors in id order, so the report is deterministic.
func findCycle(g graph.Graph[string, string], pending map[string]int) ([]string, error) {
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

// idHeap is a min-heap of ids.
type idHeap []string

func (h idHeap) Len() int           { return len(h) }
func (h idHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h idHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *idHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *idHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	*h = old[:n-1]
	return x
}
