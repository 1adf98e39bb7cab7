package langmap

import (
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

var tsLex = lexOptions{slashComments: true, singleQuote: true, backtick: true, regexLiterals: true}

// jsNoASIAfter are words after which a line break never ends a
// declaration (the declaration goes on: `export\nfunction`, `extends\nBase`).
var jsNoASIAfter = []string{"export", "default", "async", "declare", "abstract", "static", "public", "private", "protected",
	"readonly", "new", "typeof", "keyof", "const", "let", "var", "function", "class", "interface", "enum", "extends",
	"implements", "return", "await", "yield", "import", "from", "as", "type", "namespace", "module", "in", "of", "is"}

// jsContinues are words that continue the previous line (`class A\n extends B`).
var jsContinues = []string{"extends", "implements", "from", "as", "satisfies", "of", "in", "instanceof", "keyof", "is"}

// tsRules split TypeScript and JavaScript: automatic semicolons, and a
// `{` after `:`, `<`, `|`, `&` or `extends` is a type literal.
var tsRules = splitRules{asi: jsASI, typeBrace: func(prev token) bool {
	return prev.kind == tPunct && strings.Contains(":<|&", prev.text) || prev.kind == tIdent && prev.text == "extends"
}}

// jsASI is a cheap stand-in for automatic semicolon insertion: a line
// break between a value-ending token and a word ends a declaration.
func jsASI(prev, cur token) bool {
	switch {
	case prev.kind == tIdent && slices.Contains(jsNoASIAfter, prev.text):
		return false
	case prev.kind == tPunct && prev.text != ")" && prev.text != "]" && prev.text != "}":
		return false
	case cur.kind == tIdent:
		return !slices.Contains(jsContinues, cur.text)
	}
	return cur.text == "@"
}

// parseTypeScript lists a TypeScript or JavaScript file's top-level
// functions, classes (and their methods), interfaces, type aliases,
// enums, consts and variables, and its imports and requires.
func parseTypeScript(src []byte) fileInfo {
	lx := lex(src, tsLex)
	info := fileInfo{lines: lx.lines}
	seen := map[string]bool{} // overloads: the first signature stands for all
	for _, it := range splitItems(lx.toks, tsRules) {
		head := stripAnnotations(it.head)
		if len(head) == 0 {
			continue
		}
		if s, ok := tsDecl(lx, head, it.end); ok {
			if it.hasBody && head[len(head)-1].text == "=" {
				s.Signature += " {…}" // `type T = {…}`, `const o = {…}`: not left dangling
			}
			if seen[s.Kind+" "+s.Name] {
				continue
			}
			seen[s.Kind+" "+s.Name] = true
			info.symbols = append(info.symbols, s)
			if s.Kind == "type" && it.hasBody && identAfter(head, "class") != "" || s.Kind == "type" && s.Name == "default" {
				info.symbols = append(info.symbols, tsMethods(lx, s.Name, it.body)...)
			}
		}
	}
	// Imports anywhere in the file: `import … from 'x'`, `export … from
	// 'x'`, `import 'x'`, `import('x')` and `require('x')`. A `from` or
	// `import` word followed by a string literal is nothing else in
	// TypeScript or JavaScript.
	toks := lx.toks
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind != tIdent:
		case (t.text == "from" || t.text == "import") && toks[i+1].kind == tString:
			info.imports = append(info.imports, unquote(toks[i+1].text))
		case (t.text == "require" || t.text == "import") && toks[i+1].text == "(" && i+3 < len(toks) &&
			toks[i+2].kind == tString && toks[i+3].text == ")":
			info.imports = append(info.imports, unquote(toks[i+2].text))
		}
	}
	return info
}

// tsDecl recognises one top-level declaration head.
func tsDecl(lx lexed, head []token, end int) (domain.Symbol, bool) {
	first := head[0]
	rest := head
	isDefault := false
	for len(rest) > 0 && slices.Contains([]string{"export", "default", "declare", "async", "abstract"}, rest[0].text) {
		isDefault = isDefault || rest[0].text == "default"
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return domain.Symbol{}, false
	}
	sym := func(kind, name string) (domain.Symbol, bool) {
		if name == "" {
			if !isDefault {
				return domain.Symbol{}, false
			}
			name = "default"
		}
		return domain.Symbol{Kind: kind, Name: name, Signature: signature(lx, head, end), Line: first.line}, true
	}
	name := func(i int) string {
		if i < len(rest) && rest[i].kind == tIdent {
			return rest[i].text
		}
		return ""
	}
	switch rest[0].text {
	case "function":
		if len(rest) > 1 && rest[1].text == "*" {
			return sym("func", name(2))
		}
		return sym("func", name(1))
	case "class", "interface", "enum":
		return sym("type", name(1))
	case "type":
		if len(rest) > 2 && rest[1].kind == tIdent {
			return sym("type", name(1))
		}
	case "const":
		if name(1) == "enum" {
			return sym("type", name(2))
		}
		return sym("const", name(1))
	case "let", "var":
		return sym("var", name(1))
	}
	if isDefault { // export default <expression>
		return sym("var", "default")
	}
	return domain.Symbol{}, false
}

// tsModifiers precede a class member's name.
var tsModifiers = []string{"public", "private", "protected", "static", "readonly", "abstract", "async", "override",
	"declare", "get", "set", "accessor", "*"}

// tsMethods lists the methods of a class body, constructor included;
// properties, overload repeats and accessor pairs are left out.
func tsMethods(lx lexed, class string, body []token) []domain.Symbol {
	var out []domain.Symbol
	seen := map[string]bool{}
	for _, it := range splitItems(body, tsRules) {
		head := stripAnnotations(it.head)
		for len(head) > 1 && slices.Contains(tsModifiers, head[0].text) &&
			(head[1].kind == tIdent || head[1].text == "#" || head[1].text == "*" || head[1].text == "[") {
			head = head[1:]
		}
		i := 0
		if len(head) > 0 && head[0].text == "#" {
			i = 1
		}
		if i+1 >= len(head) || head[i].kind != tIdent || head[i+1].text != "(" && head[i+1].text != "<" {
			continue
		}
		name := class + "." + head[i].text
		if i == 1 {
			name = class + ".#" + head[i].text
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, domain.Symbol{Kind: "method", Name: name, Signature: signature(lx, it.head, it.end), Line: it.head[0].line})
	}
	return out
}

// unquote strips a string token's quotes; import specifiers hold no escapes
// worth decoding.
func unquote(s string) string {
	if len(s) >= 2 {
		return s[1 : len(s)-1]
	}
	return s
}
