package linediff

import (
	"fmt"
	"strings"
)

// maxCells bounds the line-matching table; past it the differing middle
// of the texts is shown as removed then added, which is still a correct
// diff, just not a minimal one.
const maxCells = 4 << 20

// Op is one line of an edit script.
type Op struct {
	// Kind is ' ' for a line both sides hold, '-' for a removed line and
	// '+' for an added one.
	Kind byte
	// Text is the line, without its newline.
	Text string
}

// String is the line as a diff shows it: its kind, then its text.
func (o Op) String() string { return string(o.Kind) + o.Text }

// Lines splits a file's text into lines; a final newline ends the last
// line rather than starting an empty one, and "" has no lines.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Diff is the edit script from a to b: the common prefix and suffix
// kept, and a longest common subsequence of the middle. A removal comes
// before the addition that replaces it.
func Diff(a, b []string) []Op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	ops := make([]Op, 0, len(a)+len(b)-p-s)
	for _, l := range a[:p] {
		ops = append(ops, Op{' ', l})
	}
	ops = lcs(ops, a[p:len(a)-s], b[p:len(b)-s])
	for _, l := range a[len(a)-s:] {
		ops = append(ops, Op{' ', l})
	}
	return ops
}

// lcs appends the edit script of a to b, a longest common subsequence
// when the table fits in maxCells.
func lcs(ops []Op, a, b []string) []Op {
	if len(a)*len(b) > maxCells || len(a) == 0 || len(b) == 0 {
		for _, l := range a {
			ops = append(ops, Op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, Op{'+', l})
		}
		return ops
	}
	// t[i*w+j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	t := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			ops = append(ops, Op{' ', a[i]})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			ops = append(ops, Op{'-', a[i]})
			i++
		default:
			ops = append(ops, Op{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		ops = append(ops, Op{'-', a[i]})
	}
	for ; j < len(b); j++ {
		ops = append(ops, Op{'+', b[j]})
	}
	return ops
}

// Hunk is a run of an edit script's changes with their context lines.
type Hunk struct {
	// OldStart and NewStart are the 1-based first lines of the hunk on
	// each side; a side with no lines in the hunk gives the line before
	// it (0 at the start of the file), as diff and GitHub do.
	OldStart, OldLines int
	NewStart, NewLines int
	// Ops are the hunk's lines.
	Ops []Op
}

// Header is the hunk's "@@ -a,b +c,d @@" line, without its newline.
func (h Hunk) Header() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
}

// Hunks groups ops into hunks of their changes with context unchanged
// lines around each; changes whose context would meet or overlap share a
// hunk. An edit script without changes has no hunks.
func Hunks(ops []Op, context int) []Hunk {
	var out []Hunk
	oldLine, newLine := 1, 1 // the lines ops[k] is at
	advance := func(op Op) {
		if op.Kind != '+' {
			oldLine++
		}
		if op.Kind != '-' {
			newLine++
		}
	}
	k := 0
	for k < len(ops) {
		next := k
		for next < len(ops) && ops[next].Kind == ' ' {
			next++
		}
		if next == len(ops) {
			break
		}
		start := max(next-context, k)
		for _, op := range ops[k:start] {
			advance(op)
		}
		// Extend past each change while the unchanged run after it is no
		// longer than both hunks' context together.
		end := next
		for end < len(ops) {
			if ops[end].Kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].Kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		h := Hunk{OldStart: oldLine, NewStart: newLine, Ops: ops[start:end]}
		for _, op := range h.Ops {
			if op.Kind != '+' {
				h.OldLines++
			}
			if op.Kind != '-' {
				h.NewLines++
			}
			advance(op)
		}
		if h.OldLines == 0 {
			h.OldStart--
		}
		if h.NewLines == 0 {
			h.NewStart--
		}
		out = append(out, h)
		k = end
	}
	return out
}
