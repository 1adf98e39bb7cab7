package langmap

import (
	"bytes"
	"strings"
)

// tokKind classifies a token.
type tokKind int

const (
	tIdent tokKind = iota
	tPunct
	tString
	tNumber
)

// token is one lexeme of a source file. Comments never become tokens and a
// string literal is one tString token whatever it holds, so a `def` or a
// `{` inside a string or comment can never start a declaration.
type token struct {
	kind tokKind
	text string
	off  int // byte offset of the first byte
	end  int // byte offset after the last byte
	line int // 1-based line of the first byte
	nl   bool
}

// lexOptions says what a language's comments and strings look like.
type lexOptions struct {
	hashComment   bool // # to end of line (Python)
	slashComments bool // // and /* */
	nestedBlock   bool // /* /* */ */ nests (Rust)
	tripleQuotes  bool // """ and ''' strings (Python, Java text blocks)
	singleQuote   bool // '…' is a string (Python, JS); off for Rust and Java chars handled apart
	backtick      bool // `…${…}…` template literals (JS)
	regexLiterals bool // /…/ after an operator is a regex (JS)
	rustStrings   bool // r#"…"#, b"…", 'c' versus 'lifetime
	javaChars     bool // 'c' char literals
	multiline     bool // "…" may span lines (Rust)
}

// lexed is a tokenised file plus its text with comments blanked (same
// offsets, newlines kept), from which one-line signatures are cut.
type lexed struct {
	toks      []token
	noComment []byte
	lines     int
}

// lex tokenises src. It is a single pass state machine; it never fails:
// an unterminated string or comment runs to the end of the file, which is
// what a reader would see too.
func lex(src []byte, o lexOptions) lexed {
	nc := make([]byte, len(src))
	copy(nc, src)
	// Token texts are slices of one string copy of the file: no
	// allocation per token.
	text := string(src)
	// About one token per five bytes of source in the benchmark's files;
	// sizing once saves the slice's regrowth, most of the map's garbage.
	toks := make([]token, 0, len(src)/5+16)
	line := 1
	newline := true
	i := 0
	blank := func(from, to int) {
		for k := from; k < to && k < len(nc); k++ {
			if nc[k] != '\n' {
				nc[k] = ' '
			}
		}
	}
	count := func(from, to int) {
		for k := from; k < to && k < len(src); k++ {
			if src[k] == '\n' {
				line++
			}
		}
	}
	emit := func(k tokKind, from, to int) {
		to = min(to, len(src)) // an unterminated literal ends with the file
		toks = append(toks, token{kind: k, text: text[from:to], off: from, end: to, line: line, nl: newline})
		newline = false
		count(from, to)
	}
	// template holds, for each open `${` of a JS template literal, the
	// brace depth at which it closes.
	var template []int
	braces := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			newline = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
			continue
		case c == '\\' && o.hashComment && (at(src, i+1) == '\n' || at(src, i+1) == '\r'):
			// A Python line continuation: the logical line goes on.
			j := indexFrom(src, i, "\n")
			count(i, j+1)
			i = j + 1
			continue
		case o.hashComment && c == '#':
			j := indexFrom(src, i, "\n")
			blank(i, j)
			i = j
			continue
		case o.slashComments && c == '/' && at(src, i+1) == '/':
			j := indexFrom(src, i, "\n")
			blank(i, j)
			i = j
			continue
		case o.slashComments && c == '/' && at(src, i+1) == '*':
			j := blockCommentEnd(src, i, o.nestedBlock)
			blank(i, j)
			count(i, j)
			i = j
			continue
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'' || o.rustStrings && src[j] == '#') {
				if end, ok := prefixedString(src, i, j, o); ok {
					emit(tString, i, end)
					i = end
					continue
				}
			}
			emit(tIdent, i, j)
			i = j
			continue
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.' && at(src, j+1) >= '0' && at(src, j+1) <= '9') {
				j++
			}
			emit(tNumber, i, j)
			i = j
			continue
		case c == '"' || c == '\'' && o.singleQuote:
			j := quotedEnd(src, i, o)
			emit(tString, i, j)
			i = j
			continue
		case c == '\'' && (o.rustStrings || o.javaChars):
			if j, ok := charLiteralEnd(src, i); ok {
				emit(tString, i, j)
				i = j
				continue
			}
			emit(tPunct, i, i+1) // a Rust lifetime's quote
			i++
			continue
		case o.backtick && c == '`':
			j := templateEnd(src, i+1)
			if at(src, j-1) == '{' && at(src, j-2) == '$' {
				template = append(template, braces)
			}
			emit(tString, i, j)
			i = j
			continue
		case o.backtick && c == '}' && len(template) > 0 && template[len(template)-1] == braces:
			template = template[:len(template)-1]
			j := templateEnd(src, i+1)
			if at(src, j-1) == '{' && at(src, j-2) == '$' {
				template = append(template, braces)
			}
			emit(tString, i, j)
			i = j
			continue
		case o.regexLiterals && c == '/' && regexAllowed(toks):
			j := regexEnd(src, i)
			emit(tString, i, j)
			i = j
			continue
		}
		switch c {
		case '{':
			braces++
		case '}':
			braces--
		}
		// Two-byte operators the parsers look at as one token.
		if i+1 < len(src) {
			if two := string(src[i : i+2]); two == "=>" || two == "->" || two == "::" {
				emit(tPunct, i, i+2)
				i += 2
				continue
			}
		}
		emit(tPunct, i, i+1)
		i++
	}
	return lexed{toks: toks, noComment: nc, lines: lineCount(src)}
}

func at(src []byte, i int) byte {
	if i < 0 || i >= len(src) {
		return 0
	}
	return src[i]
}

func indexFrom(src []byte, i int, s string) int {
	if k := bytes.Index(src[i:], []byte(s)); k >= 0 {
		return i + k
	}
	return len(src)
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// lineCount counts lines as an editor does: a final line without a newline
// counts, an empty file has none.
func lineCount(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

func blockCommentEnd(src []byte, i int, nested bool) int {
	depth := 0
	for j := i; j+1 < len(src); j++ {
		switch {
		case src[j] == '/' && src[j+1] == '*':
			if depth == 0 || nested {
				depth++
			}
			j++
		case src[j] == '*' && src[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// quotedEnd returns the offset after the string literal opening at i.
func quotedEnd(src []byte, i int, o lexOptions) int {
	q := src[i]
	if o.tripleQuotes && at(src, i+1) == q && at(src, i+2) == q {
		delim := []byte{q, q, q}
		for j := i + 3; j < len(src); j++ {
			if src[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(src[j:], delim) {
				return j + 3
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			if !o.multiline { // an unterminated one-line string ends at its line
				return j
			}
		}
	}
	return len(src)
}

// prefixedString handles string prefixes: Python's r/b/f/u and their
// combinations, Rust's b"", r"", r#""#, br#""#.
func prefixedString(src []byte, i, j int, o lexOptions) (int, bool) {
	prefix := strings.ToLower(string(src[i:j]))
	if o.rustStrings {
		switch prefix {
		case "b":
			if src[j] == '\'' {
				if end, ok := charLiteralEnd(src, j); ok {
					return end, true
				}
				return 0, false
			}
			return quotedEnd(src, j, o), src[j] == '"'
		case "r", "br":
			k := j
			for k < len(src) && src[k] == '#' {
				k++
			}
			if at(src, k) != '"' {
				return 0, false
			}
			closing := "\"" + strings.Repeat("#", k-j)
			return min(indexFrom(src, k+1, closing)+len(closing), len(src)), true
		}
		return 0, false
	}
	if !o.hashComment || len(prefix) > 2 || strings.Trim(prefix, "rbfu") != "" {
		return 0, false
	}
	return quotedEnd(src, j, o), true
}

// charLiteralEnd recognises 'c', '\n', '\u{1F600}'; a quote followed by
// an identifier and no closing quote is a Rust lifetime.
func charLiteralEnd(src []byte, i int) (int, bool) {
	if at(src, i+1) == '\\' {
		j := indexFrom(src, i+2, "'")
		if j-i > 12 {
			return 0, false
		}
		return j + 1, true
	}
	// one UTF-8 character then a quote
	j := i + 1
	if j < len(src) && src[j] >= 0x80 {
		for j++; j < len(src) && src[j]&0xC0 == 0x80; j++ {
		}
	} else {
		j++
	}
	if at(src, j) == '\'' {
		return j + 1, true
	}
	return 0, false
}

// templateEnd scans a JS template literal's text from i and returns the
// offset after its closing backtick or after the `${` that interrupts it.
func templateEnd(src []byte, i int) int {
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '`':
			return j + 1
		case '$':
			if at(src, j+1) == '{' {
				return j + 2
			}
		}
	}
	return len(src)
}

// regexAllowed says whether a / here starts a regular expression rather
// than a division: after an operator, an opening bracket, a keyword such
// as return, or at the start of the file.
func regexAllowed(toks []token) bool {
	if len(toks) == 0 {
		return true
	}
	t := toks[len(toks)-1]
	switch t.kind {
	case tIdent:
		switch t.text {
		case "return", "typeof", "case", "do", "else", "in", "of", "instanceof", "new", "delete", "void", "throw", "yield", "await":
			return true
		}
		return false
	case tString, tNumber:
		return false
	}
	return !strings.Contains(")]}", t.text)
}

func regexEnd(src []byte, i int) int {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			return j // not a regex after all; stop at the line
		case '/':
			if !class {
				j++
				for j < len(src) && isIdentPart(src[j]) {
					j++
				}
				return j
			}
		}
	}
	return len(src)
}
