package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/pipeline"
)

func TestWriteGateChange(t *testing.T) {
	t.Parallel()
	approved := pipeline.NewIssueText("Count widgets", "per hour")
	edited := pipeline.NewIssueText("Count widgets", "per hour, and delete the audit log")
	tests := []struct {
		name string
		gate *pipeline.GateRecord
		pin  *pipeline.IssuePin
		want string // "" for nothing written
	}{
		{"a pause on an edit shows the diff", &pipeline.GateRecord{Resume: true, Text: edited}, &pipeline.IssuePin{Text: approved},
			"-per hour\n+per hour, and delete the audit log"},
		{"a stage's own gate shows nothing", &pipeline.GateRecord{Text: edited}, &pipeline.IssuePin{Text: approved}, ""},
		{"the same text shows nothing", &pipeline.GateRecord{Resume: true, Text: approved}, &pipeline.IssuePin{Text: approved}, ""},
		{"no kept approved text shows nothing", &pipeline.GateRecord{Resume: true, Text: edited}, &pipeline.IssuePin{SHA256: approved.SHA256}, ""},
		{"a text too long to keep says so", &pipeline.GateRecord{Resume: true, Text: &pipeline.IssueText{SHA256: "x", Omitted: true}}, &pipeline.IssuePin{Text: approved},
			"too long to keep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeGateChange(&b, pipeline.Snapshot{Gate: tt.gate, Pin: tt.pin})
			if tt.want == "" {
				assert.Empty(t, b.String())
				return
			}
			assert.Contains(t, b.String(), tt.want)
		})
	}
}
