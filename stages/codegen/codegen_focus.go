package codegen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	pathpkg "path"
	"regexp"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/llm"
)

// The files to edit are shown whole while together they stay under
// maxTargetTokens. Beyond that the largest are shown focused, largest
// first, until the rest fits: a 4-line fix to cobra's command.go with its
// 2,200-line command_test.go was a 45k-token prompt, go-cmp's a 74k one,
// above the 40k a fix under 50 lines may cost. A focused file shows its
// head (package clause and imports) and tail (the last declaration, where
// new code is most often appended), the first line of every declaration
// (a map of the file), the declarations the plan names (whole
// when under focusWholeLines, else their first and last focusWindow
// lines: table tests grow at the end) and focusWindow lines around every
// line that names a plan symbol. The rest is replaced by a marker line
// naming the lines left out.
const (
	MaxTargetTokens  = 24000
	focusWindow      = 8
	focusWholeLines  = 150
	focusHeadLines   = 5
	focusTailLines   = 5
	FocusMarkerStart = "⋮ lines "
)

// FocusTargets returns targets with the largest file-to-edit items
// replaced by their focused view (see maxTargetTokens) until the files to
// edit fit. symbols are the plan item's symbols.
func FocusTargets(targets []contextpack.Item, symbols []string) []contextpack.Item {
	out := slices.Clone(targets)
	total := 0
	for _, it := range out {
		total += llm.EstimateTokens(it.Content)
	}
	focused := map[int]bool{}
	for total > MaxTargetTokens {
		largest, size := -1, 0
		for i, it := range out {
			if n := llm.EstimateTokens(it.Content); !focused[i] && it.Kind == contextpack.KindFileToEdit && n > size {
				largest, size = i, n
			}
		}
		if largest < 0 {
			break
		}
		focused[largest] = true
		view := FocusView(out[largest].Path, out[largest].Content, symbols)
		if n := llm.EstimateTokens(view); n < size {
			out[largest].Content = view
			total += n - size
		}
	}
	return out
}

// FocusView is content with only the lines that matter to symbols shown
// (see maxTargetTokens); every shown line is byte-for-byte the file's, so
// an edit can quote it.
func FocusView(path, content string, symbols []string) string {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	keep := make([]bool, n)
	mark := func(from, to int) { // 0-based, inclusive, clamped
		for i := max(from, 0); i <= min(to, n-1); i++ {
			keep[i] = true
		}
	}
	mark(0, focusHeadLines-1)
	mark(n-focusTailLines, n-1)
	words := symbolWords(symbols)
	switch ext := pathpkg.Ext(path); {
	case ext == ".go":
		focusGoDecls(content, words, mark)
	case topLevelDeclTypes[ext]:
		focusTopLevel(lines, mark)
	}
	if re, err := wordsPattern(words); err == nil && re != nil {
		for i, l := range lines {
			if re.MatchString(l) {
				mark(i-focusWindow, i+focusWindow)
			}
		}
	}
	var b strings.Builder
	for i := 0; i < n; {
		if keep[i] {
			b.WriteString(lines[i])
			i++
			continue
		}
		j := i
		for j < n && !keep[j] {
			j++
		}
		if j-i == 1 || blankLines(lines[i:j]) {
			// A marker would cost as much as the line, and the blank
			// lines between declarations keep their boundaries quotable.
			for _, l := range lines[i:j] {
				b.WriteString(l)
			}
		} else {
			fmt.Fprintf(&b, "%s%d–%d not shown\n", FocusMarkerStart, i+1, j)
		}
		i = j
	}
	return b.String()
}

func blankLines(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// focusGoDecls marks the header up to the imports, every declaration's
// first line, the last declaration and the declarations named by words. A file that does not
// parse is left to the line matches.
func focusGoDecls(content string, words []string, mark func(from, to int)) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", content, parser.SkipObjectResolution)
	if err != nil {
		return
	}
	line := func(p token.Pos) int { return fset.Position(p).Line - 1 }
	mark(0, line(f.Name.End()))
	for _, imp := range f.Imports {
		mark(line(imp.Pos()), line(imp.End()))
	}
	if len(f.Decls) > 0 {
		// New code (a test, above all) is most often appended: the last
		// declaration gives an anchor that occurs once.
		last := f.Decls[len(f.Decls)-1]
		if start, end := line(last.Pos()), line(last.End()); end-start+1 <= focusWholeLines {
			mark(start, end)
		}
	}
	for _, d := range f.Decls {
		start, end := line(d.Pos()), line(d.End())
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			mark(start, end)
			continue
		}
		mark(start, start)
		if !slices.ContainsFunc(declNames(d), func(name string) bool { return slices.Contains(words, name) }) {
			continue
		}
		if end-start+1 <= focusWholeLines {
			mark(start, end)
		} else {
			mark(start, start+focusWindow)
			mark(end-focusWindow, end)
		}
	}
}

// declNames are the names a declaration declares (a method by its own
// name).
func declNames(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []string{d.Name.Name}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// symbolWords are the plan's symbols as the words to look for: a method
// "T.M" by its name M (its receiver would match most of the file), words
// under three characters left out.
func symbolWords(symbols []string) []string {
	var words []string
	for _, s := range symbols {
		s = strings.TrimSpace(s)
		if i := strings.LastIndexAny(s, "./"); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSuffix(s, "()")
		if len(s) >= 3 && !slices.Contains(words, s) {
			words = append(words, s)
		}
	}
	return words
}

// wordsPattern matches a line naming any of words as a whole word; nil
// for no words.
func wordsPattern(words []string) (*regexp.Regexp, error) {
	if len(words) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(`\b(?:` + strings.Join(quoted, "|") + `)\b`)
	if err != nil {
		return nil, fmt.Errorf("symbol pattern %q: %w", words, err)
	}
	return re, nil
}

// topLevelDeclTypes are the source types whose top-level declarations
// start at column 0 with everything inside them indented (Python,
// TypeScript/JavaScript, Rust, Java, Kotlin): focusTopLevel maps them.
// Data and text files, whose every line starts at column 0, are not.
var topLevelDeclTypes = map[string]bool{
	".py": true, ".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".rs": true, ".java": true, ".kt": true,
}

// focusTopLevel marks, in a file of topLevelDeclTypes, every line that
// starts at column 0 and is neither a comment nor a closing bracket: the
// first line of every top-level declaration (def, class, function,
// export, fn, pub, ...) and the imports, a map of the file as
// focusGoDecls gives for Go.
func focusTopLevel(lines []string, mark func(from, to int)) {
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if t == "" || t[0] == ' ' || t[0] == '\t' {
			continue
		}
		if strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") ||
			strings.Trim(t, "})];,") == "" {
			continue
		}
		mark(i, i)
	}
}
