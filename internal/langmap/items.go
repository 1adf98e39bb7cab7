package langmap

import (
	"strings"
)

// maxSignature bounds a one-line signature, as the Go service does: the
// map is for finding code, not reading it.
const maxSignature = 200

// item is one declaration-shaped run of tokens of a brace language: its
// head (up to a `;` or the `{` of its body) and its body, if any.
type item struct {
	head    []token
	body    []token
	hasBody bool
	// end is the offset where the head stops (the `{` or `;`), for
	// cutting the signature.
	end int
}

// splitRules adapt splitItems to a language.
type splitRules struct {
	// asi, when set, says that a newline between prev and cur ends an
	// item (JavaScript's automatic semicolons).
	asi func(prev, cur token) bool
	// typeBrace, when set, says that a `{` after prev opens a type
	// literal inside the head (TypeScript's `(): { a: T } {`), not a body.
	typeBrace func(prev token) bool
}

// splitItems cuts toks into items at the top nesting level. A `{` outside
// parentheses opens a body that runs to its matching `}`.
func splitItems(toks []token, r splitRules) []item {
	var out []item
	start, paren := 0, 0
	flush := func(i, end int) {
		if i > start {
			out = append(out, item{head: toks[start:i], end: end})
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if r.asi != nil && paren == 0 && i > start && t.nl && r.asi(toks[i-1], t) {
			flush(i, toks[i-1].end)
			start = i
		}
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "[":
			paren++
		case ")", "]":
			if paren > 0 {
				paren--
			}
		case "{":
			if paren > 0 || r.typeBrace != nil && i > start && r.typeBrace(toks[i-1]) {
				paren++
				continue
			}
			closing := matchBrace(toks, i)
			out = append(out, item{head: toks[start:i], body: toks[i+1 : closing], hasBody: true, end: t.off})
			i = closing
			start = i + 1
		case "}":
			if paren > 0 {
				paren--
				continue
			}
			start = i + 1 // a stray brace: resynchronise after it
		case ";":
			if paren == 0 {
				flush(i, t.off)
				start = i + 1
			}
		}
	}
	if start < len(toks) {
		flush(len(toks), toks[len(toks)-1].end)
	}
	return out
}

// matchBrace returns the index of the `}` closing the `{` at open, or
// len(toks) when the file ends first.
func matchBrace(toks []token, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].kind != tPunct {
			continue
		}
		switch toks[i].text {
		case "{":
			depth++
		case "}":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(toks)
}

// skipGroup returns the index after the bracketed group opening at i.
func skipGroup(toks []token, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		if toks[i].kind != tPunct {
			continue
		}
		switch toks[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(toks)
}

// stripAnnotations drops leading `@Name`, `@a.b.Name(…)` annotations and
// decorators from head.
func stripAnnotations(head []token) []token {
	for len(head) > 1 && head[0].text == "@" && head[1].kind == tIdent && head[1].text != "interface" {
		i := 2
		for i+1 < len(head) && head[i].text == "." && head[i+1].kind == tIdent {
			i += 2
		}
		if i < len(head) && head[i].text == "(" {
			i = skipGroup(head, i)
		}
		head = head[i:]
	}
	return head
}

// signature cuts the text from the first token of head to end, comments
// blanked, on one line.
func signature(lx lexed, head []token, end int) string {
	if len(head) == 0 || end <= head[0].off {
		return ""
	}
	s := strings.Join(strings.Fields(string(lx.noComment[head[0].off:end])), " ")
	if len(s) > maxSignature {
		s = strings.ToValidUTF8(s[:maxSignature], "") + "…"
	}
	return s
}

// indexOf returns the index of the first token of head with the given
// text at paren level 0, or -1.
func indexOf(head []token, text string) int {
	depth := 0
	for i, t := range head {
		if depth == 0 && t.text == text && t.kind != tString {
			return i
		}
		if t.kind == tPunct {
			switch t.text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
	}
	return -1
}

// identAfter returns the identifier following the first token with the
// given text, or "".
func identAfter(head []token, text string) string {
	for i, t := range head {
		if t.text == text && t.kind == tIdent && i+1 < len(head) && head[i+1].kind == tIdent {
			return head[i+1].text
		}
	}
	return ""
}
