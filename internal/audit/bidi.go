package audit

import "strings"

// StripBidi removes the Unicode direction controls from s: the
// embeddings and overrides U+202A..U+202E, the isolates U+2066..U+2069,
// the marks U+200E, U+200F and the Arabic letter mark U+061C. In a title
// or a quote they make text display in an order other than the one it is
// stored in ("Fix \u202Egnp.exe" reads "Fix exe.png"), so a reviewer would
// read something other than what the text says. CogWorks never needs them
// in what it writes; Untrusted applies StripBidi, so every place untrusted
// text becomes a title or a body does too.
func StripBidi(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

// isBidiControl reports the characters StripBidi removes.
func isBidiControl(r rune) bool {
	switch {
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}
