package secrets

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
)

type leakyStringer struct{ s string }

func (l leakyStringer) String() string { return l.s }

type leakyStruct struct{ Token string }

func TestHandlerRedactsEveryPartOfARecord(t *testing.T) {
	t.Parallel()
	const secret = "log-secret-123456"
	r := New(secret)
	tests := []struct {
		name string
		log  func(*slog.Logger)
	}{
		{"message", func(l *slog.Logger) { l.Info("token is " + secret) }},
		{"string attribute", func(l *slog.Logger) { l.Info("x", "k", "v="+secret) }},
		{"error attribute", func(l *slog.Logger) { l.Error("x", "err", fmt.Errorf("call: %w", errors.New("401 "+secret))) }},
		{"stringer", func(l *slog.Logger) { l.Info("x", "s", leakyStringer{secret}) }},
		{"struct", func(l *slog.Logger) { l.Info("x", "v", leakyStruct{Token: secret}) }},
		{"bytes", func(l *slog.Logger) { l.Info("x", "b", []byte(secret)) }},
		{"group", func(l *slog.Logger) { l.Info("x", slog.Group("g", "k", secret)) }},
		{"with attrs", func(l *slog.Logger) { l.With("k", secret).Info("x") }},
		{"with group", func(l *slog.Logger) { l.WithGroup("g").Info("x", "k", secret) }},
		{"encoded", func(l *slog.Logger) { l.Info("x", "k", base64.StdEncoding.EncodeToString([]byte(secret))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, format := range []string{"text", "json"} {
				var buf bytes.Buffer
				var next slog.Handler = slog.NewTextHandler(&buf, nil)
				if format == "json" {
					next = slog.NewJSONHandler(&buf, nil)
				}
				tt.log(slog.New(NewHandler(next, r)))
				assert.NotContains(t, buf.String(), "log-secret", format)
				assert.Contains(t, buf.String(), Redacted, format)
			}
		})
	}
}

func TestHandlerKeepsOrdinaryValues(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	slog.New(NewHandler(slog.NewJSONHandler(&buf, nil), New("log-secret-123456"))).Debug("hidden")
	assert.Empty(t, buf.String(), "the level is the wrapped handler's")
	slog.New(NewHandler(slog.NewJSONHandler(&buf, nil), New("log-secret-123456"))).Info("m", "n", 3, "s", "plain", "v", leakyStruct{"ok"})
	assert.Contains(t, buf.String(), `"n":3`)
	assert.Contains(t, buf.String(), `"s":"plain"`)
	assert.Contains(t, buf.String(), `"v":{"Token":"ok"}`)
}
