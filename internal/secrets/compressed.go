package secrets

import (
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"io"
	"strings"
)

// A compressed secret's bytes depend on the compressor, its level and its
// header fields, so its forms cannot be computed in advance. Instead,
// Redact looks for base64 that starts like gzip ("H4sI": 1f 8b 08) or
// zlib (0x78 and a check byte that fits it: "eJ", "eN", "eF", "eA"),
// inflates it — at most inflateBudget bytes and maxBlobs attempts in all
// per call, reading the base64 as the inflater asks for it — and replaces
// the base64 run whole when what it holds has a secret in any form. A run
// that cannot be checked within those bounds is replaced too: an
// unreadable blob costs a reader nothing, a secret inside it would cost a
// credential. Nested compression is not unwrapped.

// inflateBudget bounds the bytes one Redact call inflates.
const inflateBudget = 1 << 20

// maxBlobs bounds the inflate attempts of one Redact call, so text full
// of gzip- or zlib-like starts costs a bounded amount too.
const maxBlobs = 64

// minCompressedRun is the shortest base64 run worth inflating: a gzip
// member's header and trailer alone are 18 bytes.
const minCompressedRun = 24

// redactCompressed replaces the compressed base64 runs of text that hold
// a secret, or that cannot be checked within the bounds.
func (r *Redactor) redactCompressed(text string) string {
	budget, blobs := inflateBudget, 0
	var b strings.Builder
	last := 0
	for i := 0; i+4 <= len(text); i++ {
		if c := text[i]; (c != 'H' && c != 'e') || !compressedStart(text[i:]) {
			continue
		}
		end := runEnd(text, i)
		if end-i < minCompressedRun {
			continue
		}
		blobs++
		var out []byte
		complete := false
		if blobs <= maxBlobs {
			out, complete = inflate(text[i:end], budget)
			budget -= len(out)
		}
		switch {
		case complete && len(out) == 0:
			continue // not compressed data after all: look further on
		case complete && !r.found(string(out)):
			i = end - 1 // compressed, harmless: its inside is not looked at again
			continue
		}
		b.WriteString(text[last:i])
		b.WriteString(Redacted)
		last = end
		i = end - 1
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// compressedStart reports whether s starts with the base64 of a gzip or
// zlib header.
func compressedStart(s string) bool {
	if strings.HasPrefix(s, "H4sI") {
		return true
	}
	if s[0] != 'e' {
		return false
	}
	c1, c2 := base64Value(s[1]), base64Value(s[2])
	if c1 < 0 || c2 < 0 || c1>>4 != 0 {
		return false
	}
	// 'e' and c1's top bits make 0x78, the deflate method with a 32 KiB
	// window; the check byte follows.
	check := (c1&15)<<4 | c2>>2
	return (0x78<<8|check)%31 == 0
}

// base64Value returns c's value in the standard or URL alphabet, or -1.
func base64Value(c byte) int {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A')
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26
	case '0' <= c && c <= '9':
		return int(c-'0') + 52
	case c == '+' || c == '-':
		return 62
	case c == '/' || c == '_':
		return 63
	}
	return -1
}

// runEnd returns the end of the base64 run starting at text[i]; line
// breaks inside it (wrapped base64) belong to it, trailing ones do not.
func runEnd(text string, i int) int {
	end := i
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case base64Value(c) >= 0 || c == '=':
			end = j + 1
		case c == '\n' || c == '\r':
		default:
			return end
		}
	}
	return end
}

// inflate reads the base64 run s as gzip or zlib data, inflating at most
// limit bytes. complete reports that the data ended within the limit; a
// run that is not compressed data is complete with no output, and
// corrupt or truncated data yields what inflated before the error.
func inflate(s string, limit int) (out []byte, complete bool) {
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	// The decoder skips line breaks; padding ends the data.
	if p := strings.IndexByte(s, '='); p >= 0 {
		s = s[:p]
	}
	raw := base64.NewDecoder(enc, strings.NewReader(s))
	var zr io.Reader
	if strings.HasPrefix(s, "H4sI") {
		g, err := gzip.NewReader(raw)
		if err != nil {
			return nil, true
		}
		g.Multistream(false)
		zr = g
	} else {
		z, err := zlib.NewReader(raw)
		if err != nil {
			return nil, true
		}
		zr = z
	}
	out, _ = io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if len(out) > limit {
		return out[:limit], false
	}
	return out, true
}
