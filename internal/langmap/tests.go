package langmap

import (
	"bytes"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Tests returns the tests the file at p (repository-relative) declares,
// named as the language's usual runner reports them in a JUnit report, so
// that a declared test can be found among a run's results:
//   - Python (pytest): test* functions and test* methods of Test* classes
//     or unittest.TestCase subclasses in test_*.py / *_test.py files; the
//     package is the file (pytest's JUnit "file");
//   - TypeScript/JavaScript (vitest, jest, node:test): test()/it() calls
//     whose title is a literal, inside describe()/suite() blocks with
//     literal titles, named "describe > test" (vitest's form; testverdict
//     also matches jest's and node's); the package is the file;
//   - Rust (libtest): #[test] functions (and #[tokio::test]-style
//     attributes) named by their module path in the crate (tests::adds);
//     the package is left empty (libtest names no file);
//   - Java (JUnit): @Test, @ParameterizedTest, @RepeatedTest methods; the
//     package is the class's qualified name (Surefire's classname).
//
// Tests that can never run are left out (skip/todo variants, #[ignore],
// @Disabled, @pytest.mark.skip), as are tests whose name is not literal
// (it.each, computed titles). It parses only. Other files give nil.
func Tests(p string, src []byte) []domain.TestDeclaration {
	lang := languageOf(path.Base(p))
	if lang == nil || len(src) > maxFileSize {
		return nil
	}
	var out []domain.TestDeclaration
	switch lang.name {
	case "python":
		out = pythonTests(p, src)
	case "typescript":
		out = tsTests(p, src)
	case "rust":
		out = rustTests(p, src)
	case "java":
		out = javaTests(src)
	}
	for i := range out {
		out[i].File = p
	}
	return out
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int

func newLineIndex(src []byte) lineIndex {
	var nl []int
	for i := bytes.IndexByte(src, '\n'); i >= 0; {
		nl = append(nl, i)
		j := bytes.IndexByte(src[i+1:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return nl
}

// lineOf is the line of the byte before off (the last byte of a token
// ending at off).
func (li lineIndex) lineOf(off int) int {
	return sort.SearchInts(li, max(off-1, 0)) + 1
}

// pythonTests reads pytest's default collection rules.
func pythonTests(p string, src []byte) []domain.TestDeclaration {
	base := path.Base(p)
	if !strings.HasPrefix(base, "test_") && !strings.HasSuffix(base, "_test.py") {
		return nil
	}
	lx := lex(src, pythonLex)
	li := newLineIndex(src)
	lines := pythonLines(src, lx.toks)
	var out []domain.TestDeclaration
	inClass, classIndent, bodyIndent := false, 0, -1
	decorStart, skipped := 0, false
	for i, ln := range lines {
		toks := ln.toks
		if toks[0].text == "@" {
			if decorStart == 0 {
				decorStart = toks[0].line
			}
			var b strings.Builder
			for _, t := range toks {
				b.WriteString(t.text)
			}
			d := b.String()
			skipped = skipped || d == "@pytest.mark.skip" || strings.HasPrefix(d, "@pytest.mark.skip(") || strings.HasPrefix(d, "@unittest.skip(")
			continue
		}
		start, skip := decorStart, skipped
		decorStart, skipped = 0, false
		if start == 0 {
			start = toks[0].line
		}
		if inClass && ln.indent <= classIndent {
			inClass = false
		}
		j := 0
		if toks[0].text == "async" {
			j = 1
		}
		if j+1 >= len(toks) || toks[j+1].kind != tIdent {
			continue
		}
		kw, name := toks[j].text, toks[j+1].text
		switch {
		case kw == "class" && j == 0 && ln.indent == 0: // pytest collects module-level classes
			inClass = strings.HasPrefix(name, "Test") || slices.ContainsFunc(toks[2:], func(t token) bool { return t.text == "TestCase" })
			classIndent, bodyIndent = ln.indent, -1
			if skip {
				inClass = false
			}
		case kw != "def" || !strings.HasPrefix(name, "test"):
		case !inClass && ln.indent == 0 || inClass && (bodyIndent < 0 || ln.indent == bodyIndent):
			if inClass {
				bodyIndent = ln.indent
			}
			if !skip {
				end := pythonBlockEnd(lines, i, li)
				out = append(out, domain.TestDeclaration{Name: name, Package: p, Line: start, EndLine: end})
			}
		}
		if inClass && ln.indent > classIndent && bodyIndent < 0 {
			bodyIndent = ln.indent
		}
	}
	return out
}

// pythonBlockEnd is the last line of the block lines[i] opens.
func pythonBlockEnd(lines []pyLine, i int, li lineIndex) int {
	last := lines[i].toks[len(lines[i].toks)-1]
	for _, ln := range lines[i+1:] {
		if ln.indent <= lines[i].indent {
			break
		}
		last = ln.toks[len(ln.toks)-1]
	}
	return li.lineOf(last.end)
}

// literal returns a string token's text without its quotes, and false for
// a template literal with substitutions.
func literal(t token) (string, bool) {
	if t.kind != tString || len(t.text) < 2 {
		return "", false
	}
	q := t.text[0]
	if t.text[len(t.text)-1] != q || q == '`' && strings.Contains(t.text, "${") {
		return "", false // a template with substitutions (lexed in pieces)
	}
	return t.text[1 : len(t.text)-1], true
}

// tsFrame is an open describe() block.
type tsFrame struct {
	title string
	depth int
	// named is false for a describe whose title is not literal, skip for
	// a skipped one: the tests inside cannot be declared.
	named, skip bool
}

// tsTests reads vitest's and jest's test()/it()/describe() calls.
func tsTests(p string, src []byte) []domain.TestDeclaration {
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	if !strings.HasSuffix(stem, ".test") && !strings.HasSuffix(stem, ".spec") && !slices.Contains(strings.Split(path.Dir(p), "/"), "__tests__") {
		return nil
	}
	toks := lex(src, tsLex).toks
	var out []domain.TestDeclaration
	var stack []tsFrame
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tPunct {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
				for len(stack) > 0 && depth < stack[len(stack)-1].depth {
					stack = stack[:len(stack)-1]
				}
			}
			continue
		}
		fn := t.text
		if t.kind != tIdent || !slices.Contains([]string{"describe", "suite", "test", "it", "xit", "xtest", "xdescribe", "fit", "fdescribe"}, fn) ||
			i > 0 && toks[i-1].text == "." {
			continue
		}
		j, skip := i+1, strings.HasPrefix(fn, "x")
		for j+1 < len(toks) && toks[j].text == "." && toks[j+1].kind == tIdent {
			switch toks[j+1].text {
			case "skip", "todo", "each", "skipIf", "runIf", "failing":
				skip = true
			}
			j += 2
		}
		if j+1 >= len(toks) || toks[j].text != "(" {
			continue
		}
		title, named := literal(toks[j+1])
		if strings.HasSuffix(fn, "describe") || fn == "suite" { // suite: node:test's describe
			stack = append(stack, tsFrame{title: title, depth: depth + 1, named: named, skip: skip})
			continue
		}
		titles := []string{}
		for _, f := range stack {
			named = named && f.named
			skip = skip || f.skip
			titles = append(titles, f.title)
		}
		if !named || skip {
			continue
		}
		end := toks[skipGroup(toks, j)-1].line
		out = append(out, domain.TestDeclaration{Name: strings.Join(append(titles, title), " > "), Package: p, Line: t.line, EndLine: end})
	}
	return out
}

// rustModulePath is the module path of a file in its crate: src/lib.rs
// and src/main.rs, tests/x.rs and src/bin/x.rs are crate roots,
// src/a/mod.rs is a, src/a/b.rs is a::b.
func rustModulePath(p string) []string {
	i := strings.LastIndex("/"+p, "/src/")
	if i < 0 {
		return nil
	}
	rel := strings.TrimSuffix(("/" + p)[i+len("/src/"):], ".rs")
	segs := strings.Split(rel, "/")
	switch {
	case segs[0] == "bin", rel == "lib", rel == "main":
		return nil
	case segs[len(segs)-1] == "mod":
		return segs[:len(segs)-1]
	}
	return segs
}

// rustTests reads libtest's #[test] functions.
func rustTests(p string, src []byte) []domain.TestDeclaration {
	toks := lex(src, rustLex).toks
	type mod struct {
		name  string
		depth int
	}
	var mods []mod
	var out []domain.TestDeclaration
	depth, attrLine, isTest, ignored := 0, 0, false, false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.text == "#" && i+1 < len(toks) && toks[i+1].text == "[":
			end := skipGroup(toks, i+1)
			var segs []string
			for k := i + 2; k < end-1 && (toks[k].kind == tIdent || toks[k].text == ":" || toks[k].text == "::"); k++ {
				if toks[k].kind == tIdent {
					segs = append(segs, toks[k].text)
				}
			}
			if attrLine == 0 {
				attrLine = t.line
			}
			if len(segs) > 0 {
				isTest = isTest || segs[len(segs)-1] == "test"
				ignored = ignored || segs[0] == "ignore"
			}
			i = end - 1
			continue
		case t.text == "{":
			depth++
		case t.text == "}":
			depth--
			for len(mods) > 0 && depth < mods[len(mods)-1].depth {
				mods = mods[:len(mods)-1]
			}
		case t.text == "mod" && i+2 < len(toks) && toks[i+1].kind == tIdent && toks[i+2].text == "{":
			mods = append(mods, mod{name: toks[i+1].text, depth: depth + 1})
		case t.text == "fn" && i+1 < len(toks) && toks[i+1].kind == tIdent:
			if isTest && !ignored {
				name := rustModulePath(p)
				for _, m := range mods {
					name = append(name, m.name)
				}
				end := t.line
				for k := i + 2; k < len(toks); k++ {
					if toks[k].text == "{" {
						end = toks[skipGroup(toks, k)-1].line
						break
					}
				}
				out = append(out, domain.TestDeclaration{Name: strings.Join(append(name, toks[i+1].text), "::"), Line: cmpOr(attrLine, t.line), EndLine: end})
			}
		}
		if t.text == "fn" || t.text == ";" || t.text == "{" || t.text == "}" {
			attrLine, isTest, ignored = 0, false, false
		}
	}
	return out
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// javaTestAnnotations are JUnit's annotations of a test method.
var javaTestAnnotations = []string{"Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"}

// javaTests reads JUnit's annotated test methods.
func javaTests(src []byte) []domain.TestDeclaration {
	toks := lex(src, javaLex).toks
	pkg := ""
	type class struct {
		name  string
		depth int
	}
	var classes []class
	var out []domain.TestDeclaration
	depth, annLine, isTest, disabled := 0, 0, false, false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.text == "package" && depth == 0:
			var b strings.Builder
			for i++; i < len(toks) && toks[i].text != ";"; i++ {
				b.WriteString(toks[i].text)
			}
			pkg = b.String()
		case t.text == "@" && i+1 < len(toks) && toks[i+1].kind == tIdent && toks[i+1].text != "interface":
			k := i + 1
			for k+2 < len(toks) && toks[k+1].text == "." && toks[k+2].kind == tIdent {
				k += 2
			}
			if annLine == 0 {
				annLine = t.line
			}
			isTest = isTest || slices.Contains(javaTestAnnotations, toks[k].text)
			disabled = disabled || toks[k].text == "Disabled" || toks[k].text == "Ignore"
			i = k
			if i+1 < len(toks) && toks[i+1].text == "(" {
				i = skipGroup(toks, i+1) - 1
			}
		case t.text == "{":
			depth++
			annLine, isTest, disabled = 0, false, false
		case t.text == "}":
			depth--
			for len(classes) > 0 && depth < classes[len(classes)-1].depth {
				classes = classes[:len(classes)-1]
			}
		case (t.text == "class" || t.text == "record" || t.text == "enum") && i+1 < len(toks) && toks[i+1].kind == tIdent:
			k := i + 2
			for k < len(toks) && toks[k].text != "{" && toks[k].text != ";" {
				k++
			}
			classes = append(classes, class{name: toks[i+1].text, depth: depth + 1})
			annLine, isTest, disabled = 0, false, false
			i = k - 1
		case t.text == "(" && i > 0 && toks[i-1].kind == tIdent && isTest && len(classes) > 0:
			names := make([]string, len(classes))
			for k, c := range classes {
				names[k] = c.name
			}
			qual := strings.Join(names, "$")
			if pkg != "" {
				qual = pkg + "." + qual
			}
			end := toks[i-1].line
			k := skipGroup(toks, i) // past the parameters, then `throws …` up to the body
			for k < len(toks) && toks[k].text != "{" && toks[k].text != ";" {
				k++
			}
			if k < len(toks) && toks[k].text == "{" {
				end = toks[skipGroup(toks, k)-1].line
			}
			if !disabled {
				out = append(out, domain.TestDeclaration{Name: toks[i-1].text, Package: qual, Line: annLine, EndLine: end})
			}
			annLine, isTest, disabled = 0, false, false
		case t.text == ";":
			annLine, isTest, disabled = 0, false, false
		}
	}
	return out
}
