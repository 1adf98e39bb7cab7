package audit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStripBidi(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"right-to-left override", "Fix \u202Egnp.exe", "Fix gnp.exe"},
		{"every embedding and override", "a\u202Ab\u202Bc\u202Cd\u202De\u202Ef", "abcdef"},
		{"isolates", "\u2066x\u2067y\u2068z\u2069", "xyz"},
		{"marks", "l\u200Er\u200Fa\u061C", "lra"},
		{"other invisible characters stay", "word\u2060joiner\u200Bspace", "word\u2060joiner\u200Bspace"},
		{"right-to-left text itself stays", "שלום عربي", "שלום عربي"},
		{"plain", "Count widgets per hour", "Count widgets per hour"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, StripBidi(tt.in))
			assert.Equal(t, tt.want, StripBidi(StripBidi(tt.in)), "idempotent")
			assert.NotContains(t, Untrusted(tt.in), "\u202E", "Untrusted strips them too")
		})
	}
}
