package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// A stage halted by the repository's configuration (no domain service
// covers its files, or the one that might is down) says what to configure
// and names the services file and its doc, never "Attempts (0) _No attempt
// was recorded._" (issue 27's first run).
func TestConfigurationFailureSaysWhatToConfigure(t *testing.T) {
	tests := []struct {
		name  string
		cause error
		want  []string
	}{
		{name: "no service covers the change", cause: fmt.Errorf("code generation: simulate: %w", &domain.NoServiceError{Paths: []string{"src/pkg/calc.py"}, Types: []string{".go", "go.mod"}}),
			want: []string{"no domain service covers src/pkg/calc.py", "Register a domain service for the repository's languages in `.cogworks/services.toml`"}},
		{name: "no service at all", cause: fmt.Errorf("interface design: %w", &domain.NoServiceError{}),
			want: []string{"no domain service is available (no domain service is registered)", "#### What to configure"}},
		{name: "the service is down", cause: &domain.HaltError{Services: []string{"python"}, Artifacts: []string{"a.py"}, Reasons: []string{`"python" at http://127.0.0.1:1: refused`}},
			want: []string{"Start the unavailable domain service (python)", "`cogworks health`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, pipeline.LabelRun)
			f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
				return StageResult{}, tt.cause
			})
			_, err := Step(context.Background(), f.deps, f.ref())
			require.Error(t, err)
			var report string
			for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
				if strings.Contains(c.Body, audit.Marker(audit.FailureKey(f.issue, "intake"))) {
					report = c.Body
				}
			}
			require.NotEmpty(t, report)
			for _, w := range tt.want {
				assert.Contains(t, report, w)
			}
			assert.Contains(t, report, "docs/domain-services.md")
			assert.Contains(t, report, ".cogworks/services.toml")
			assert.NotContains(t, report, "Attempts (0)")
			assert.NotContains(t, report, "_No attempt was recorded._")
		})
	}
}
