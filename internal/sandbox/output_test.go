package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutput_CapsAndNotesTruncation(t *testing.T) {
	tests := []struct {
		name      string
		writes    []string
		want      string
		truncated bool
	}{
		{"under the limit", []string{"ab", "cd"}, "abcd", false},
		{"exactly the limit", []string{"abcdefgh"}, "abcdefgh", false},
		{"over in one write", []string{"abcdefghij"}, "abcdefgh\n…(output truncated: 2 bytes over the 8-byte limit discarded)\n", true},
		{"over across writes", []string{"abcdef", "ghij", "kl"}, "abcdefgh\n…(output truncated: 4 bytes over the 8-byte limit discarded)\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOutput(8)
			for _, w := range tt.writes {
				n, err := o.Write([]byte(w))
				assert.NoError(t, err)
				assert.Equal(t, len(w), n, "writes never fail, so the command is not killed by a broken pipe")
			}
			assert.Equal(t, tt.want, string(o.Bytes()))
			assert.Equal(t, tt.truncated, o.Truncated())
		})
	}
	big := NewOutput(1 << 10)
	for range 1 << 10 {
		_, _ = big.Write([]byte(strings.Repeat("x", 1<<10)))
	}
	assert.Less(t, len(big.Bytes()), 2<<10, "1 MiB written, about 1 KiB kept")
}
