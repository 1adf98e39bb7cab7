package secrets

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Matching runs over a normal form of the text, so that a secret written
// with its hex or base32 in the other case, split across lines, broken up
// by separators or invisible characters, or spelt in full-width look-alike
// characters still matches. The patterns are normalised the same way.
//
// The normal form is a per-character map (so normalise(a+b) is
// normalise(a)+normalise(b), which is what lets a pattern's normal form be
// found in the text's): ASCII letters are lower-cased; ASCII white space
// (line breaks, and the spaces of hex dumps) is dropped; so are the
// zero-width and direction-control characters and the soft hyphen;
// full-width and other width variants are folded to their narrow form
// (golang.org/x/text/width), then treated as above. Every other byte,
// including bytes that are not valid UTF-8, is kept as it is. ':' and '-'
// are kept, since base64url and many secrets hold them: hex with those
// separators is one of the forms instead.
//
// Folding case makes the plain and base64 forms case-insensitive too;
// for values of at least MinLen bytes that costs no real match, and a
// false positive costs a word where a miss costs a credential.

// foldRune returns r's normal form, or -1 when r is dropped.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + ('a' - 'A')
		case r == ' ', r == '\t', r == '\n', r == '\r', r == '\v', r == '\f':
			return -1
		}
		return r
	}
	if invisible(r) {
		return -1
	}
	if f := width.LookupRune(r).Folded(); f != 0 && f != r {
		return foldRune(f)
	}
	return r
}

// invisible reports the characters that render as nothing or only move
// text: zero-width spaces and joiners, the byte order mark, the soft
// hyphen and the Unicode direction controls.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x061C, r == 0xFEFF:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x2069:
		return true
	}
	return false
}

// normaliser walks text in its normal form. For each position it reports
// the normal bytes of the character there and the character's width in
// the text.
type normaliser struct {
	buf [utf8.UTFMax]byte
}

// next returns the normal bytes of the character at text[i:] (nil when
// it is dropped) and its width in text. A character that does not change
// under folding, and a byte that is not valid UTF-8, yield text's own
// bytes: only a valid character that folds or drops is rewritten.
func (n *normaliser) next(text string, i int) ([]byte, int) {
	c := text[i]
	if c < utf8.RuneSelf {
		f := foldRune(rune(c))
		if f < 0 {
			return nil, 1
		}
		n.buf[0] = byte(f)
		return n.buf[:1], 1
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && size <= 1 {
		n.buf[0] = c
		return n.buf[:1], 1
	}
	f := foldRune(r)
	if f < 0 {
		return nil, size
	}
	return utf8.AppendRune(n.buf[:0], f), size
}

// normalise returns s in its normal form.
func normalise(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var n normaliser
	for i := 0; i < len(s); {
		out, size := n.next(s, i)
		b.Write(out)
		i += size
	}
	return b.String()
}

// alignedCore returns the part of s that normalises the same wherever s
// sits in a text: s without leading UTF-8 continuation bytes and without
// a trailing incomplete sequence, either of which could join a
// neighbouring byte of the text into one character. A valid UTF-8 s is
// returned whole.
func alignedCore(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	lo := 0
	for lo < len(s) && lo < utf8.UTFMax-1 && !utf8.RuneStart(s[lo]) {
		lo++
	}
	hi := len(s)
	for back := 1; back < utf8.UTFMax && hi-back >= lo; back++ {
		if utf8.RuneStart(s[hi-back]) {
			if !utf8.FullRuneInString(s[hi-back:]) {
				hi -= back
			}
			break
		}
	}
	return s[lo:hi]
}
