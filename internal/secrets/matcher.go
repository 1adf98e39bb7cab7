package secrets

import "unicode/utf8"

// matcher is an Aho-Corasick automaton over bytes. It answers, for every
// position of a text, the longest pattern ending there, which is all
// redaction needs: a shorter pattern ending at the same byte lies inside
// the longer one's span.
type matcher struct {
	// dense holds full transition rows of the root and of every node with
	// more than denseKids children (the shallow nodes that hex and base64
	// forms share); denseOf[i] is node i's row, or -1. A row's 0 means no
	// child (the root is never a child).
	dense   [][256]int32
	denseOf []int32
	// edges holds the other nodes' children, grouped by node; nodes[i]
	// is the [lo, hi) range of node i's children in edges.
	edges []edge
	nodes [][2]int32
	fail  []int32
	// longest is the length of the longest pattern that is a suffix of
	// the node's string (0: none).
	longest []int32
	// maxLen is the length of the longest pattern.
	maxLen int
	// ascii is each ASCII byte's normal form, or dropped.
	ascii [utf8.RuneSelf]byte
}

// dropped marks an ASCII byte that normalisation drops.
const dropped = 0xFF

type edge struct {
	b  byte
	to int32
}

// denseKids is the number of children above which a node gets a dense
// row: a linear scan of more edges costs more than the row's cache miss.
const denseKids = 4

// child returns node n's child on b, or -1.
func (m *matcher) child(n int32, b byte) int32 {
	if d := m.denseOf[n]; d >= 0 {
		if t := m.dense[d][b]; t != 0 {
			return t
		}
		return -1
	}
	r := m.nodes[n]
	for _, e := range m.edges[r[0]:r[1]] {
		if e.b == b {
			return e.to
		}
	}
	return -1
}

// step follows b from node n, falling back along failure links.
func (m *matcher) step(n int32, b byte) int32 {
	for {
		if t := m.child(n, b); t >= 0 {
			return t
		}
		if n == 0 {
			return 0
		}
		n = m.fail[n]
	}
}

// newMatcher builds the automaton for patterns (empty ones are ignored).
func newMatcher(patterns []string) *matcher {
	// Build a trie with per-node child lists, then flatten it.
	type buildNode struct {
		kids     []edge
		depth    int32
		terminal bool
	}
	trie := []buildNode{{}}
	maxLen := 0
	for _, p := range patterns {
		if p == "" {
			continue
		}
		n := int32(0)
		for i := 0; i < len(p); i++ {
			next := int32(-1)
			for _, e := range trie[n].kids {
				if e.b == p[i] {
					next = e.to
					break
				}
			}
			if next < 0 {
				next = int32(len(trie))
				trie = append(trie, buildNode{depth: trie[n].depth + 1})
				trie[n].kids = append(trie[n].kids, edge{b: p[i], to: next})
			}
			n = next
		}
		trie[n].terminal = true
		maxLen = max(maxLen, len(p))
	}
	m := &matcher{
		denseOf: make([]int32, len(trie)),
		nodes:   make([][2]int32, len(trie)),
		fail:    make([]int32, len(trie)),
		longest: make([]int32, len(trie)),
		maxLen:  maxLen,
	}
	for c := range m.ascii {
		m.ascii[c] = dropped
		if f := foldRune(rune(c)); f >= 0 {
			m.ascii[c] = byte(f)
		}
	}
	for i, bn := range trie {
		m.denseOf[i] = -1
		if i == 0 || len(bn.kids) > denseKids {
			var row [256]int32
			for _, e := range bn.kids {
				row[e.b] = e.to
			}
			m.denseOf[i] = int32(len(m.dense))
			m.dense = append(m.dense, row)
			continue
		}
		lo := int32(len(m.edges))
		m.edges = append(m.edges, bn.kids...)
		m.nodes[i] = [2]int32{lo, int32(len(m.edges))}
	}
	// Breadth first, so a node's failure target is final before its
	// children's are computed from it.
	queue := make([]int32, 0, len(trie))
	for _, e := range trie[0].kids {
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if trie[n].terminal {
			m.longest[n] = trie[n].depth
		} else {
			m.longest[n] = m.longest[m.fail[n]]
		}
		for _, e := range trie[n].kids {
			m.fail[e.to] = m.step(m.fail[n], e.b)
			queue = append(queue, e.to)
		}
	}
	return m
}

// spans returns the merged [start, end) byte ranges of text covered by
// any pattern, in order, appended to out.
func (m *matcher) spans(out [][2]int, text string) [][2]int {
	n := int32(0)
	for i := 0; i < len(text); i++ {
		n = m.step(n, text[i])
		if l := m.longest[n]; l != 0 {
			out = addSpan(out, i+1-int(l), i+1)
		}
	}
	return out
}

// normalSpans is spans over text's normal form (see normalise), for
// patterns in normal form: the ranges are text's, each running from the
// first character whose normal bytes a match covers to the end of the
// last.
func (m *matcher) normalSpans(out [][2]int, text string) [][2]int {
	// origin[k&mask] is the offset in text of the character that yielded
	// the k-th normal byte; a match is never longer than maxLen, nor than
	// text, so the ring needs no more entries than the smaller of the two.
	size := 1
	for size < min(m.maxLen, len(text)) {
		size <<= 1
	}
	origin := make([]int32, size)
	mask := size - 1
	var norm normaliser
	n, k := int32(0), 0
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			// The common case, without the general path's call.
			if f := m.ascii[c]; f != dropped {
				origin[k&mask] = int32(i)
				k++
				n = m.step(n, f)
				if l := m.longest[n]; l != 0 {
					out = addSpan(out, int(origin[(k-int(l))&mask]), i+1)
				}
			}
			i++
			continue
		}
		bs, width := norm.next(text, i)
		for _, b := range bs {
			origin[k&mask] = int32(i)
			k++
			n = m.step(n, b)
			if l := m.longest[n]; l != 0 {
				out = addSpan(out, int(origin[(k-int(l))&mask]), i+width)
			}
		}
		i += width
	}
	return out
}

// addSpan appends [start, end) to the ordered spans out, absorbing the
// earlier spans it reaches back over (a longer secret containing a
// shorter one) or touches.
func addSpan(out [][2]int, start, end int) [][2]int {
	for len(out) > 0 && start <= out[len(out)-1][1] {
		start = min(start, out[len(out)-1][0])
		end = max(end, out[len(out)-1][1])
		out = out[:len(out)-1]
	}
	return append(out, [2]int{start, end})
}
