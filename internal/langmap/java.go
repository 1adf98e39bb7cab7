package langmap

import (
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

var javaLex = lexOptions{slashComments: true, tripleQuotes: true, javaChars: true}

// javaModifiers precede a declaration; `non-sealed` lexes as non - sealed.
var javaModifiers = []string{"public", "protected", "private", "static", "final", "abstract", "sealed", "non", "-",
	"strictfp", "default", "synchronized", "native", "transient", "volatile"}

// javaTypeKeywords start a type declaration.
var javaTypeKeywords = []string{"class", "interface", "enum", "record"}

// javaDecl strips annotations and modifiers off a head.
func javaDecl(head []token) []token {
	for {
		head = stripAnnotations(head)
		if len(head) > 1 && slices.Contains(javaModifiers, head[0].text) {
			head = head[1:]
			continue
		}
		return head
	}
}

// javaTypeName returns the name of a type declaration head, or "".
func javaTypeName(d []token) string {
	if len(d) > 2 && d[0].text == "@" && d[1].text == "interface" && d[2].kind == tIdent {
		return d[2].text
	}
	if len(d) > 1 && slices.Contains(javaTypeKeywords, d[0].text) && d[1].kind == tIdent {
		return d[1].text
	}
	return ""
}

// parseJava lists a Java file's package clause, imports, types and the
// methods and constructors of each type; nested types are listed as
// Outer.Inner without their members.
func parseJava(src []byte) fileInfo {
	lx := lex(src, javaLex)
	info := fileInfo{lines: lx.lines}
	for _, it := range splitItems(lx.toks, splitRules{}) {
		d := javaDecl(it.head)
		if len(d) == 0 {
			continue
		}
		switch d[0].text {
		case "package":
			info.pkgName = javaDotted(d[1:])
			continue
		case "import":
			rest := d[1:]
			if len(rest) > 0 && rest[0].text == "static" {
				rest = rest[1:]
			}
			info.imports = append(info.imports, strings.TrimSuffix(javaDotted(rest), ".*"))
			continue
		}
		name := javaTypeName(d)
		if name == "" {
			continue
		}
		info.symbols = append(info.symbols, domain.Symbol{Kind: "type", Name: name, Signature: signature(lx, stripAnnotations(it.head), it.end), Line: d[0].line})
		info.symbols = append(info.symbols, javaMembers(lx, name, it.body, d[0].text == "enum")...)
	}
	return info
}

// javaMembers lists a type body's methods, constructors and nested types.
func javaMembers(lx lexed, class string, body []token, enum bool) []domain.Symbol {
	var out []domain.Symbol
	if enum {
		// The constants come first, up to the first `;` outside brackets
		// (constants may have bodies of their own); no `;`, no members.
		semi := -1
		for i, depth := 0, 0; i < len(body) && semi < 0; i++ {
			switch body[i].text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			case ";":
				if depth == 0 && body[i].kind == tPunct {
					semi = i
				}
			}
		}
		body = body[semi+1:]
		if semi < 0 {
			body = nil
		}
	}
	items := splitItems(body, splitRules{})
	for _, it := range items {
		d := javaDecl(it.head)
		if len(d) == 0 {
			continue
		}
		if name := javaTypeName(d); name != "" {
			out = append(out, domain.Symbol{Kind: "type", Name: class + "." + name, Signature: signature(lx, stripAnnotations(it.head), it.end), Line: d[0].line})
			continue
		}
		p := indexOf(d, "(")
		if p < 1 || d[p-1].kind != tIdent || indexOf(d[:p], "=") >= 0 || d[0].text == "new" {
			continue // a field, an initialiser block or a statement
		}
		// The signature keeps the modifiers (visibility matters to a
		// reader) but not the annotations.
		out = append(out, domain.Symbol{Kind: "method", Name: class + "." + d[p-1].text, Signature: signature(lx, stripAnnotations(it.head), it.end), Line: d[0].line})
	}
	return out
}

// javaDotted joins a qualified name's tokens up to the first token that is
// neither a word, a dot nor a star.
func javaDotted(d []token) string {
	var b strings.Builder
	for _, t := range d {
		if t.kind != tIdent && t.text != "." && t.text != "*" {
			break
		}
		b.WriteString(t.text)
	}
	return b.String()
}
