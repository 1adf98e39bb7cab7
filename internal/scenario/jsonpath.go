package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// jsonPath is a parsed expression of the small, safe JSONPath subset used by
// json_path checks:
//
//	$            the document root (optional: "a.b" means "$.a.b")
//	.name        object member (letters, digits, '_' and '-')
//	['name']     object member with any characters (also "name")
//	[n]          array element; negative n counts from the end
//	[*] or .*    every element or member value (a projection)
//
// Without a projection the result is the single addressed value and a
// missing member or index is an error. With a projection the result is the
// list of values that exist, in document order (members by sorted key).
type jsonPath struct {
	segs []pathSeg
}

type pathSeg struct {
	kind  segKind
	name  string
	index int
}

type segKind int

const (
	segMember segKind = iota
	segIndex
	segWildcard
)

func parseJSONPath(expr string) (jsonPath, error) {
	s := strings.TrimSpace(expr)
	if s == "" {
		return jsonPath{}, fmt.Errorf("empty JSONPath expression")
	}
	if strings.HasPrefix(s, "$") {
		s = s[1:]
	} else if s[0] != '.' && s[0] != '[' {
		s = "." + s
	}
	var p jsonPath
	for i := 0; i < len(s); {
		switch s[i] {
		case '.':
			i++
			if i < len(s) && s[i] == '*' {
				p.segs = append(p.segs, pathSeg{kind: segWildcard})
				i++
				continue
			}
			start := i
			for i < len(s) && isIdentByte(s[i]) {
				i++
			}
			if start == i {
				return jsonPath{}, fmt.Errorf("JSONPath %q: expected a member name at offset %d", expr, start)
			}
			p.segs = append(p.segs, pathSeg{kind: segMember, name: s[start:i]})
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return jsonPath{}, fmt.Errorf("JSONPath %q: unclosed '['", expr)
			}
			inner := strings.TrimSpace(s[i+1 : i+end])
			seg, err := parseBracket(inner)
			if err != nil {
				return jsonPath{}, fmt.Errorf("JSONPath %q: %w", expr, err)
			}
			p.segs = append(p.segs, seg)
			i += end + 1
		default:
			return jsonPath{}, fmt.Errorf("JSONPath %q: unexpected %q at offset %d (supported: $, .name, ['name'], [n], [*], .*)", expr, s[i], i)
		}
	}
	return p, nil
}

func parseBracket(inner string) (pathSeg, error) {
	switch {
	case inner == "*":
		return pathSeg{kind: segWildcard}, nil
	case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
		return pathSeg{kind: segMember, name: inner[1 : len(inner)-1]}, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return pathSeg{}, fmt.Errorf("unsupported selector [%s] (use [n], [*] or ['name'])", inner)
	}
	return pathSeg{kind: segIndex, index: n}, nil
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '-' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
}

// eval applies the path to a normalised JSON document.
func (p jsonPath) eval(doc any) (any, error) {
	nodes := []any{doc}
	projected := false
	for _, seg := range p.segs {
		var next []any
		for _, n := range nodes {
			vals, err := step(n, seg)
			if err != nil {
				if projected {
					continue
				}
				return nil, err
			}
			next = append(next, vals...)
		}
		if seg.kind == segWildcard {
			projected = true
		}
		nodes = next
	}
	if projected {
		if nodes == nil {
			nodes = []any{}
		}
		return nodes, nil
	}
	return nodes[0], nil
}

func step(n any, seg pathSeg) ([]any, error) {
	switch seg.kind {
	case segMember:
		m, ok := n.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("cannot select member %q of %s", seg.name, typeName(n))
		}
		v, ok := m[seg.name]
		if !ok {
			return nil, fmt.Errorf("member %q not found", seg.name)
		}
		return []any{v}, nil
	case segIndex:
		l, ok := n.([]any)
		if !ok {
			return nil, fmt.Errorf("cannot index %s with [%d]", typeName(n), seg.index)
		}
		i := seg.index
		if i < 0 {
			i += len(l)
		}
		if i < 0 || i >= len(l) {
			return nil, fmt.Errorf("index [%d] out of range (length %d)", seg.index, len(l))
		}
		return []any{l[i]}, nil
	}
	switch t := n.(type) {
	case []any:
		return t, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = t[k]
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot apply [*] to %s", typeName(n))
}
