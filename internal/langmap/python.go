package langmap

import (
	"bytes"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

var pythonLex = lexOptions{hashComment: true, tripleQuotes: true, singleQuote: true}

// pyLine is one logical line: tokens up to a newline outside brackets.
type pyLine struct {
	toks   []token
	indent int
}

// pythonLines groups tokens into logical lines and measures each one's
// indentation from the source.
func pythonLines(src []byte, toks []token) []pyLine {
	var out []pyLine
	depth, start := 0, 0
	for i, t := range toks {
		if t.nl && depth == 0 && i > 0 {
			out = append(out, pyLine{toks: toks[start:i:i], indent: indentOf(src, toks[start])})
			start = i
		}
		if t.kind == tPunct {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth > 0 {
					depth--
				}
			}
		}
	}
	if start < len(toks) {
		out = append(out, pyLine{toks: toks[start:], indent: indentOf(src, toks[start])})
	}
	return out
}

// indentOf is the column of t's first byte.
func indentOf(src []byte, t token) int {
	return t.off - (bytes.LastIndexByte(src[:t.off], '\n') + 1)
}

// parsePython lists module-level functions, classes and assignments, the
// methods and nested classes one level into each class, and every import.
func parsePython(src []byte) fileInfo {
	lx := lex(src, pythonLex)
	info := fileInfo{lines: lx.lines}
	class, bodyIndent := "", -1
	for _, ln := range pythonLines(src, lx.toks) {
		toks := ln.toks
		if toks[0].text == "import" || toks[0].text == "from" {
			info.imports = append(info.imports, pythonImports(toks)...)
			continue
		}
		if toks[0].text == "@" { // a decorator: the def on the next line is what counts
			continue
		}
		if ln.indent == 0 {
			class, bodyIndent = "", -1
			if s, ok := pythonDef(lx, toks, ""); ok {
				info.symbols = append(info.symbols, s)
				if s.Kind == "type" {
					class = s.Name
				}
				continue
			}
			if len(toks) > 2 && toks[0].text == "type" && toks[1].kind == tIdent && (toks[2].text == "=" || toks[2].text == "[") {
				// Python 3.12's `type Alias[T] = …`
				info.symbols = append(info.symbols, domain.Symbol{Kind: "type", Name: toks[1].text,
					Signature: signature(lx, toks, toks[len(toks)-1].end), Line: toks[0].line})
				continue
			}
			if s, ok := pythonAssign(lx, toks); ok {
				info.symbols = append(info.symbols, s)
			}
			continue
		}
		if class == "" {
			continue
		}
		if bodyIndent < 0 {
			bodyIndent = ln.indent
		}
		if ln.indent == bodyIndent {
			if s, ok := pythonDef(lx, toks, class); ok {
				info.symbols = append(info.symbols, s)
			}
		}
	}
	return info
}

// pythonDef recognises `def`, `async def` and `class` lines; in a class
// (class != "") a def is a method and a class a nested type.
func pythonDef(lx lexed, toks []token, class string) (domain.Symbol, bool) {
	i := 0
	if toks[0].text == "async" {
		i = 1
	}
	if i+1 >= len(toks) || toks[i+1].kind != tIdent || toks[i].text != "def" && (toks[i].text != "class" || i > 0) {
		return domain.Symbol{}, false
	}
	kind, name := "func", toks[i+1].text
	if toks[i].text == "class" {
		kind = "type"
	} else if class != "" {
		kind = "method"
	}
	if class != "" {
		name = class + "." + name
	}
	end := toks[len(toks)-1].end
	if c := indexOf(toks, ":"); c > 0 {
		end = toks[c].off
	}
	return domain.Symbol{Kind: kind, Name: name, Signature: signature(lx, toks, end), Line: toks[0].line}, true
}

// pythonAssign recognises `NAME = …` and `NAME: T = …` at module level;
// an upper-case name is a constant by convention.
func pythonAssign(lx lexed, toks []token) (domain.Symbol, bool) {
	if len(toks) < 3 || toks[0].kind != tIdent || toks[1].text != "=" && toks[1].text != ":" || toks[2].text == "=" {
		return domain.Symbol{}, false
	}
	name := toks[0].text
	kind := "var"
	if strings.ToUpper(name) == name && strings.ToLower(name) != name {
		kind = "const"
	}
	return domain.Symbol{Kind: kind, Name: name, Signature: signature(lx, toks, toks[len(toks)-1].end), Line: toks[0].line}, true
}

// pythonImports reads `import a.b as c, d` and `from ..x import y`; a
// relative module keeps its leading dots for the package to resolve.
func pythonImports(toks []token) []string {
	dotted := func(i int) (string, int) {
		var b strings.Builder
		for ; i < len(toks) && (toks[i].kind == tIdent && toks[i].text != "import" || toks[i].text == "."); i++ {
			if toks[i].kind == tIdent && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
				break
			}
			b.WriteString(toks[i].text)
		}
		return b.String(), i
	}
	if toks[0].text == "from" {
		mod, i := dotted(1)
		if mod == "" || i >= len(toks) || toks[i].text != "import" {
			return nil
		}
		return []string{mod}
	}
	var out []string
	for i := 1; i < len(toks); {
		mod, j := dotted(i)
		if mod != "" {
			out = append(out, mod)
		}
		// skip `as alias` up to the next comma
		for j < len(toks) && toks[j].text != "," {
			j++
		}
		i = j + 1
	}
	return out
}
