package llm

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tokenSamples are texts of every kind that reaches a prompt.
func tokenSamples(t *testing.T) map[string]string {
	t.Helper()
	read := func(path string) string {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return string(data)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 6000)
	for i := range raw {
		raw[i] = byte(rng.UintN(256))
	}
	var hashes strings.Builder
	for i := range 200 {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		hashes.WriteString(hex.EncodeToString(sum[:]) + "  file" + fmt.Sprint(i) + ".go\n")
	}
	return map[string]string{
		"go source (gateway.go)":              read("gateway.go"),
		"go source (cmd/doctor/doctor.go)":    read(filepath.Join("..", "cmd", "doctor", "doctor.go")),
		"go test (providers/gateway_test.go)": read(filepath.Join("providers", "gateway_test.go")),
		"go test (tokens_test.go)":            read("tokens_test.go"),
		"prose (architecture)":                read(filepath.Join("..", "..", "docs", "architecture.md")),
		"prose (prompt)":                      read(filepath.Join("..", "prompts", "templates", "code_generation.md")),
		"json (golden request)":               read(filepath.Join("providers", "testdata", "provider-requests", "openai-chat", "architecture.json")),
		"go.sum":                              read(filepath.Join("..", "..", "go.sum")),
		"base64":                              base64.StdEncoding.EncodeToString(raw),
		"hex":                                 hex.EncodeToString(raw[:3000]),
		"sha256 list":                         hashes.String(),
		"non-latin":                           strings.Repeat("Bremsdruck über 1,0 wird begrenzt. 制动压力超过1.0时将被限制。Давление тормоза ограничено. 🚗⚠️\n", 40),
	}
}

// TestEstimateNeverUnderCounts checks EstimateTokens against OpenAI's
// tokenizers (cl100k_base and o200k_base, loaded offline) on every kind of
// text, and logs how far over it is.
func TestEstimateNeverUnderCounts(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	var encs []*tiktoken.Tiktoken
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		enc, err := tiktoken.GetEncoding(name)
		require.NoError(t, err)
		encs = append(encs, enc)
	}
	for name, text := range tokenSamples(t) {
		real := 0
		for _, enc := range encs {
			real = max(real, len(enc.Encode(text, nil, nil)))
		}
		est := EstimateTokens(text)
		old := (len(text) + 2) / 3
		t.Logf("%-28s bytes %6d  tokenizer %6d  estimate %6d (%+.0f%%)  bytes/3 %6d (%+.0f%%)",
			name, len(text), real, est, 100*float64(est-real)/float64(real), old, 100*float64(old-real)/float64(real))
		assert.GreaterOrEqual(t, est, real, "%s: the estimate must not under-count", name)
	}
}

func TestEstimateTokensClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello", 1},
		{"parseRetryAfter", 3},   // parse·Retry·After
		{"HTTPServer", 2},        // HTTP·Server
		{"deadbeef00112233", 12}, // near-random: 3 per 4
		{"12345", 3},             // digits: 1 per 2
		{"a := b\n", 5},          // a, :, =, b, newline; spaces merge
		{"\t\t\t\tx", 2},         // indentation: 1 per 4
		{"über", 2},              // ü (2 bytes) + ber
		{"制动", 4},                // 3-byte runes: 2 each
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, EstimateTokens(tt.in), "%q", tt.in)
	}
}
