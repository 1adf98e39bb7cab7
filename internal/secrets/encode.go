package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// forms returns the strings by which value v may appear in text: v
// itself and its base64, hex, URL-escaped and JSON-escaped forms. Forms
// shorter than MinLen are dropped (see MinLen).
func forms(v string) []string {
	out := []string{v, hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v))),
		queryEscape(v, upperHex), queryEscape(v, lowerHex), pathEscape(v, upperHex), pathEscape(v, lowerHex)}
	out = append(out, jsonForms(v)...)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		// The whole encoding, padded and raw, so the padding is removed
		// too when the value was encoded on its own.
		out = append(out, enc.EncodeToString([]byte(v)), enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
		for offset := range 3 {
			out = append(out, base64Core(enc, v, offset))
		}
	}
	kept := out[:0]
	for _, f := range out {
		if len(f) >= MinLen {
			kept = append(kept, f)
		}
	}
	return kept
}

// base64Core returns the base64 characters that depend on v alone when v
// starts offset bytes (0, 1 or 2) after a 3-byte boundary of a longer
// encoded blob: the characters that mix in a neighbouring byte are cut.
func base64Core(enc *base64.Encoding, v string, offset int) string {
	buf := make([]byte, offset+len(v))
	copy(buf[offset:], v)
	s := enc.WithPadding(base64.NoPadding).EncodeToString(buf)
	// Leading characters holding bits of the offset bytes: offset 1
	// taints two characters (6 + 2 bits), offset 2 three (6 + 6 + 4).
	lead := []int{0, 2, 3}[offset]
	// The last character mixes in the byte after v unless v ends on a
	// 3-byte boundary.
	trail := 0
	if (offset+len(v))%3 != 0 {
		trail = 1
	}
	if len(s) < lead+trail {
		return ""
	}
	return s[lead : len(s)-trail]
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
