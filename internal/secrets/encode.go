package secrets

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// forms returns the strings by which value v may appear in text: v
// itself, reversed, and its base64, base64 of base64, base32, hex,
// hex (also with ':' or '-' between the bytes), URL-escaped and
// JSON-escaped forms. Upper case and white space are left to
// normalisation (see normalise). Forms shorter than MinLen are
// dropped (see MinLen).
func forms(v string) []string {
	h := hex.EncodeToString([]byte(v))
	out := []string{v, reversed(v), h, separated(h, ':'), separated(h, '-'),
		queryEscape(v, upperHex), queryEscape(v, lowerHex), pathEscape(v, upperHex), pathEscape(v, lowerHex)}
	out = append(out, jsonForms(v)...)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, blobForms(v, enc.WithPadding(base64.NoPadding).EncodeToString, 6, enc.EncodeToString([]byte(v)))...)
	}
	// base64 twice: the inner encoding whole (padded and raw), the outer
	// at every alignment.
	for _, inner := range []string{base64.StdEncoding.EncodeToString([]byte(v)), base64.RawStdEncoding.EncodeToString([]byte(v))} {
		out = append(out, blobForms(inner, base64.RawStdEncoding.EncodeToString, 6, base64.StdEncoding.EncodeToString([]byte(inner)))...)
	}
	// base32's two alphabets; its letters are upper case, which
	// normalisation folds, so the lower-case spellings match too.
	for _, enc := range []*base32.Encoding{base32.StdEncoding, base32.HexEncoding} {
		out = append(out, blobForms(v, enc.WithPadding(base32.NoPadding).EncodeToString, 5, enc.EncodeToString([]byte(v)))...)
	}
	kept := out[:0]
	for _, f := range out {
		if len(f) >= MinLen {
			kept = append(kept, f)
		}
	}
	return kept
}

// blobForms returns v's encoding by the unpadded encoder raw (bits bits a
// character) on its own, padded (the padded form as the encoder writes
// it, so the padding goes too), and the cores of v at every byte
// alignment inside a longer encoded blob.
func blobForms(v string, raw func([]byte) string, bits int, padded string) []string {
	out := []string{padded, raw([]byte(v))}
	group := bits // bytes a group of characters holds: lcm(8, bits)/8
	if bits == 6 {
		group = 3
	}
	for offset := range group {
		out = append(out, core(raw, bits, v, offset))
	}
	return out
}

// core returns the characters of an encoding that depend on v alone when
// v starts offset bytes after a group boundary of a longer encoded blob:
// the characters that mix in a neighbouring byte are cut. Character i
// holds bits [bits*i, bits*(i+1)); v's bits are [8*offset, 8*(offset+len)).
func core(raw func([]byte) string, bits int, v string, offset int) string {
	buf := make([]byte, offset+len(v))
	copy(buf[offset:], v)
	s := raw(buf)
	lead := (8*offset + bits - 1) / bits
	end := 8 * (offset + len(v)) / bits
	if end <= lead {
		return ""
	}
	return s[lead:end]
}

// separated returns the hex string h with sep between its bytes, as hex
// dumps and fingerprints write them.
func separated(h string, sep byte) string {
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// reversed returns v backwards, character by character (byte by byte
// where v is not UTF-8).
func reversed(v string) string {
	if !utf8.ValidString(v) {
		b := []byte(v)
		slices.Reverse(b)
		return string(b)
	}
	r := []rune(v)
	slices.Reverse(r)
	return string(r)
}

// jsonForms returns v as it appears inside a JSON string, with and
// without HTML escaping (Go's encoder escapes <, > and & by default).
func jsonForms(v string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b strings.Builder
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(html)
		if err := e.Encode(v); err != nil {
			continue // a string always encodes; nothing to add otherwise
		}
		s := strings.TrimSuffix(b.String(), "\n")
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`))
	}
	return out
}

const (
	upperHex = "0123456789ABCDEF"
	lowerHex = "0123456789abcdef"
)

// queryEscape is url.QueryEscape with a choice of hex digits (some
// encoders write lower case escapes); net/url stays out of this pure
// package.
func queryEscape(s, digits string) string {
	return escape(s, digits, func(c byte) bool { return false }, true)
}

// pathEscape is url.PathEscape with a choice of hex digits.
func pathEscape(s, digits string) string {
	return escape(s, digits, func(c byte) bool { return strings.IndexByte("$&+,:;=@", c) >= 0 }, false)
}

func escape(s, digits string, keep func(byte) bool, spacePlus bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', keep(c):
			b.WriteByte(c)
		case c == ' ' && spacePlus:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(digits[c>>4])
			b.WriteByte(digits[c&15])
		}
	}
	return b.String()
}
