package openapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseEmbedded(t *testing.T) {
	start := time.Now()
	d, err := Default()
	require.NoError(t, err)
	t.Logf("parsed %d operations in %v", len(d.Operations), time.Since(start))
	require.NotEmpty(t, d.Operations)
}
