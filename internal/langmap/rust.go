package langmap

import (
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

var rustLex = lexOptions{slashComments: true, nestedBlock: true, rustStrings: true, multiline: true}

// rustItem is an item head with its attributes and visibility taken off.
type rustItem struct {
	item
	decl    []token // the head from the item keyword on
	cfgTest bool
}

// rustItems splits toks into items and strips `#[…]` attributes,
// visibility and qualifiers (async, unsafe, extern "C", const fn).
func rustItems(toks []token) []rustItem {
	var out []rustItem
	for _, it := range splitItems(toks, splitRules{}) {
		h := it.head
		ri := rustItem{item: it}
		for len(h) > 2 && h[0].text == "#" {
			j := 1
			if h[1].text == "!" {
				j = 2
			}
			if j >= len(h) || h[j].text != "[" {
				break
			}
			end := skipGroup(h, j)
			var b strings.Builder
			for _, t := range h[j:end] {
				b.WriteString(t.text)
			}
			if strings.Contains(b.String(), "cfg(test)") {
				ri.cfgTest = true
			}
			h = h[end:]
		}
		for len(h) > 0 {
			switch {
			case h[0].text == "pub":
				h = h[1:]
				if len(h) > 0 && h[0].text == "(" {
					h = h[skipGroup(h, 0):]
				}
				continue
			case slices.Contains([]string{"async", "unsafe", "default"}, h[0].text) && len(h) > 1 && h[1].kind == tIdent:
				h = h[1:]
				continue
			case h[0].text == "extern" && len(h) > 1 && h[1].kind == tString:
				h = h[2:]
				continue
			case h[0].text == "const" && len(h) > 1 && slices.Contains([]string{"fn", "unsafe", "async", "extern"}, h[1].text):
				h = h[1:]
				continue
			}
			break
		}
		ri.decl = h
		out = append(out, ri)
	}
	return out
}

// parseRust lists a Rust file's functions, types, traits, constants,
// statics and macros, the methods of its impl and trait blocks, its `use`
// paths and the `mod x;` declarations marked #[cfg(test)].
func parseRust(src []byte) fileInfo {
	lx := lex(src, rustLex)
	info := fileInfo{lines: lx.lines}
	for _, ri := range rustItems(lx.toks) {
		d := ri.decl
		if len(d) < 2 {
			continue
		}
		// the signature starts after the attributes but keeps `pub`
		sigHead := ri.head[len(ri.head)-len(d):]
		for i := len(ri.head) - len(d) - 1; i >= 0 && ri.head[i].text != "]"; i-- {
			sigHead = ri.head[i:]
		}
		sym := func(kind, name string) {
			info.symbols = append(info.symbols, domain.Symbol{Kind: kind, Name: name, Signature: signature(lx, sigHead, ri.end), Line: sigHead[0].line})
		}
		name := ""
		if d[1].kind == tIdent {
			name = d[1].text
		}
		switch d[0].text {
		case "use":
			info.imports = append(info.imports, rustUsePath(d[1:]))
		case "extern":
			if d[1].text == "crate" && len(d) > 2 {
				info.imports = append(info.imports, d[2].text)
			}
		case "mod":
			if ri.cfgTest && !ri.hasBody {
				info.testMods = append(info.testMods, name)
			}
		case "fn":
			sym("func", name)
		case "struct", "enum", "union", "type":
			sym("type", name)
		case "trait":
			sym("type", name)
			info.symbols = append(info.symbols, rustMethods(lx, name, ri.body)...)
		case "const":
			sym("const", name)
		case "static":
			if name == "mut" && len(d) > 2 {
				name = d[2].text
			}
			sym("var", name)
		case "macro_rules":
			if len(d) > 2 && d[1].text == "!" {
				sym("func", d[2].text)
			}
		case "impl":
			if ri.hasBody {
				info.symbols = append(info.symbols, rustMethods(lx, rustImplType(d), ri.body)...)
			}
		}
	}
	return info
}

// rustMethods lists the fns of an impl or trait body as Type.name.
func rustMethods(lx lexed, typ string, body []token) []domain.Symbol {
	var out []domain.Symbol
	for _, ri := range rustItems(body) {
		if len(ri.decl) < 2 || ri.decl[0].text != "fn" {
			continue
		}
		head := ri.head[len(ri.head)-len(ri.decl):]
		for i := len(ri.head) - len(ri.decl) - 1; i >= 0 && ri.head[i].text != "]"; i-- {
			head = ri.head[i:]
		}
		out = append(out, domain.Symbol{Kind: "method", Name: typ + "." + ri.decl[1].text, Signature: signature(lx, head, ri.end), Line: head[0].line})
	}
	return out
}

// rustImplType names the type of `impl<T> Trait for a::Type<T> where …`.
func rustImplType(d []token) string {
	i := 1
	if i < len(d) && d[i].text == "<" {
		i = skipAngles(d, i)
	}
	if f := slices.IndexFunc(d[i:], func(t token) bool { return t.text == "for" && t.kind == tIdent }); f >= 0 {
		i += f + 1
	}
	name := ""
	for ; i < len(d); i++ {
		t := d[i]
		switch {
		case t.text == "<" || t.text == "where":
			return name
		case t.kind == tIdent && t.text != "dyn" && t.text != "mut":
			name = t.text
		}
	}
	return name
}

// skipAngles returns the index after the <…> group opening at i.
func skipAngles(d []token, i int) int {
	depth := 0
	for ; i < len(d); i++ {
		switch d[i].text {
		case "<":
			depth++
		case ">":
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(d)
}

// rustUsePath is the path of a use tree up to its first group, glob or
// alias: `a::b::{c, d}` is a::b, `a::b::C as D` is a::b::C.
func rustUsePath(d []token) string {
	var b strings.Builder
	for _, t := range d {
		if t.kind != tIdent && t.text != "::" || t.text == "as" {
			break
		}
		b.WriteString(t.text)
	}
	return strings.TrimPrefix(strings.TrimSuffix(b.String(), "::"), "::")
}
