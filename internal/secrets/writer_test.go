package secrets

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriterRedactsWhateverTheChunks(t *testing.T) {
	t.Parallel()
	const secret = "child-secret-0123456789"
	text := "start\nleak " + secret + " and " + hex.EncodeToString([]byte(secret)) + "\nlast line without newline " + secret
	for _, chunk := range []int{1, 3, 7, len(text)} {
		var out bytes.Buffer
		w := NewWriter(&out, New(secret))
		for i := 0; i < len(text); i += chunk {
			n, err := w.Write([]byte(text[i:min(i+chunk, len(text))]))
			require.NoError(t, err)
			require.Equal(t, min(chunk, len(text)-i), n)
		}
		assert.NotContains(t, out.String(), "last line", "an unterminated line is held back")
		require.NoError(t, w.Flush())
		assert.Equal(t, strings.Count(out.String(), Redacted), 3, "chunk %d: %q", chunk, out.String())
		assert.NotContains(t, out.String(), "child-secret")
		assert.True(t, strings.HasPrefix(out.String(), "start\nleak "))
	}
}

func TestWriterPassesOnAnOverlongLine(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := NewWriter(&out, nil)
	_, err := w.Write(bytes.Repeat([]byte("x"), maxPending+1))
	require.NoError(t, err)
	assert.Equal(t, maxPending+1, out.Len())
}
