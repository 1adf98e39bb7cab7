package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	cfg, err := Load(t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, Default(), cfg)
	assert.Equal(t, 30*time.Minute, cfg.Pipeline.LockTimeout.Duration)
	assert.Equal(t, HumanGated, cfg.GateMode("architecture"))
	assert.Equal(t, AutoProceed, cfg.GateMode("planning"))
}

func TestLoadSpecExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "full.toml"))
	require.NoError(t, err)
	cfg, err := Parse("full.toml", data)
	require.NoError(t, err)
	assert.Equal(t, 45*time.Minute, cfg.Pipeline.LockTimeout.Duration)
	assert.Equal(t, 7, cfg.Pipeline.MaxSubWorkItems)
	assert.Equal(t, HumanGated, cfg.GateMode("planning"))
	assert.Equal(t, HumanGated, cfg.GateMode("architecture"), "unset gate keeps its default")
	assert.Equal(t, []string{"brake", "firmware/motor"}, cfg.Classification.SafetyCriticalModules)
	assert.Equal(t, []ForbiddenImport{{From: "brake", To: "telemetry"}}, cfg.Constraints.ForbiddenImports)
	assert.Equal(t, "openai", cfg.LLM.Provider)
	assert.InDelta(t, 0.9, cfg.Scenarios.Threshold, 1e-9)
}

func TestParseErrorsNameFileAndKey(t *testing.T) {
	tests := []struct {
		name string
		toml string
		want []string
	}{
		{"unknown key", "[pipeline]\nlock_timout = \"5m\"\n", []string{"cfg.toml", "unknown key pipeline.lock_timout"}},
		{"unknown table", "[gatez]\narchitecture = \"human-gated\"\n", []string{"cfg.toml", "unknown key gatez"}},
		{"bad duration", "[pipeline]\nlock_timeout = \"soon\"\n", []string{"cfg.toml", "invalid duration \"soon\""}},
		{"negative duration", "[pipeline]\nlock_timeout = \"-5m\"\n", []string{"pipeline.lock_timeout", "positive"}},
		{"bad gate mode", "[gates]\nplanning = \"maybe\"\n", []string{"cfg.toml", "gates.planning", "\"maybe\""}},
		{"unknown gate stage", "[gates]\ndeploy = \"human-gated\"\n", []string{"gates.deploy", "unknown stage"}},
		{"zero max items", "[pipeline]\nmax_sub_work_items = 0\n", []string{"pipeline.max_sub_work_items", "got 0"}},
		{"bad provider", "[llm]\nprovider = \"magic\"\n", []string{"llm.provider", "\"magic\""}},
		{"threshold range", "[scenarios]\nthreshold = 1.5\n", []string{"scenarios.threshold", "1.5"}},
		{"escaping directory", "[interfaces]\ndirectory = \"../x\"\n", []string{"interfaces.directory"}},
		{"wrong type", "[budgets]\npipeline_max_tokens = \"lots\"\n", []string{"cfg.toml", "pipeline_max_tokens"}},
		{"syntax", "[pipeline]\nmax_sub_work_items = = 3\n", []string{"cfg.toml", "line 2"}},
		{"one price only", "[llm]\ninput_price_per_mtok = 3.0\n", []string{"llm.input_price_per_mtok", "output_price_per_mtok"}},
		{"negative price", "[llm]\ninput_price_per_mtok = -1.0\noutput_price_per_mtok = 2.0\n", []string{"llm.input_price_per_mtok", "≥ 0"}},
		{"incomplete forbidden import", "[constraints]\nforbidden_imports = [{ from = \"a\" }]\n", []string{"constraints.forbidden_imports[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cfg.toml", []byte(tt.toml))
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	cfg := Default()
	cfg.Pipeline.MaxSubWorkItems = 0
	cfg.LLM.Model = ""
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pipeline.max_sub_work_items")
	assert.Contains(t, err.Error(), "llm.model")
}

// TestMaxSubWorkItemsIsBoundedByGitHubsSubIssueLimit: a plan of more
// sub-work-items than GitHub's 100 sub-issues per issue cannot be filed;
// the configuration says so instead of a failed link at planning.
func TestMaxSubWorkItemsIsBoundedByGitHubsSubIssueLimit(t *testing.T) {
	for _, n := range []int{1, 100} {
		cfg := Default()
		cfg.Pipeline.MaxSubWorkItems = n
		assert.NoError(t, cfg.Validate(), n)
	}
	cfg := Default()
	cfg.Pipeline.MaxSubWorkItems = 101
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "pipeline.max_sub_work_items: must be between 1 and 100 (GitHub's limit of sub-issues per issue), got 101")
}

func TestLoadReadsRepoFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".cogworks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, Path), []byte("[pipeline]\nlock_timeout = \"1m\"\n"), 0o644))
	cfg, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, time.Minute, cfg.Pipeline.LockTimeout.Duration)

	require.NoError(t, os.WriteFile(filepath.Join(dir, Path), []byte("bogus = 1\n"), 0o644))
	_, err = Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, Path))
	assert.Contains(t, err.Error(), "bogus")
}

func TestProvidersAndPrices(t *testing.T) {
	for _, p := range Providers() {
		cfg, err := Parse("cfg.toml", []byte("[llm]\nprovider = \""+p+"\"\n"))
		require.NoError(t, err, p)
		assert.Equal(t, p, cfg.LLM.Provider)
	}
	cfg, err := Parse("cfg.toml", []byte("[llm]\nmodel = \"my-model\"\ninput_price_per_mtok = 0.5\noutput_price_per_mtok = 1.5\n"))
	require.NoError(t, err)
	require.NotNil(t, cfg.LLM.InputPricePerMTok)
	require.NotNil(t, cfg.LLM.OutputPricePerMTok)
	assert.InDelta(t, 0.5, *cfg.LLM.InputPricePerMTok, 1e-12)
	assert.InDelta(t, 1.5, *cfg.LLM.OutputPricePerMTok, 1e-12)
	assert.Nil(t, Default().LLM.InputPricePerMTok, "built-in prices apply unless configured")
}

func TestParseRejectsNonFiniteNumbers(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[budgets]\npipeline_max_cost_usd = nan\n", "budgets.pipeline_max_cost_usd: must be a finite number > 0, got NaN"},
		{"[budgets]\npipeline_max_cost_usd = inf\n", "budgets.pipeline_max_cost_usd: must be a finite number > 0, got +Inf"},
		{"[scenarios]\nthreshold = nan\n", "scenarios.threshold: must be within [0, 1], got NaN"},
		{"[llm]\ninput_price_per_mtok = nan\noutput_price_per_mtok = 1.0\n", "llm.input_price_per_mtok: must be a finite number ≥ 0, got NaN"},
	}
	for _, tt := range tests {
		_, err := Parse("config.toml", []byte(tt.text))
		require.Error(t, err, tt.text)
		assert.Contains(t, err.Error(), tt.want)
	}
}

func TestTrustDefaultsAndOverrides(t *testing.T) {
	t.Parallel()
	def := Default().Trust
	assert.Equal(t, Trust{RequireWriterTrigger: true, MaxAnswerFiles: 50, MaxAnswerBytes: 1 << 20}, def)

	cfg, err := Parse("cfg.toml", []byte("[trust]\nrequire_writer_trigger = false\nmax_answer_files = 7\n"))
	require.NoError(t, err)
	assert.False(t, cfg.Trust.RequireWriterTrigger)
	assert.Equal(t, 7, cfg.Trust.MaxAnswerFiles)
	assert.Equal(t, 1<<20, cfg.Trust.MaxAnswerBytes, "an omitted key keeps its default")

	_, err = Parse("cfg.toml", []byte("[trust]\nmax_answer_bytes = 0\n"))
	assert.ErrorContains(t, err, "trust.max_answer_bytes: must be ≥ 1, got 0")
}

func TestParseSandboxSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		toml string
		want Sandbox
	}{
		{"omitted: everything off", "", Sandbox{}},
		{"network opt-in", "[sandbox]\nnetwork = true\n", Sandbox{Network: true}},
		{"cgo opt-in", "[sandbox]\ncgo = true\n", Sandbox{CGO: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse("config.toml", []byte(tt.toml))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Sandbox)
		})
	}
	_, err := Parse("config.toml", []byte("[sandbox]\nnetwrok = true\n"))
	require.Error(t, err, "a misspelt sandbox key is rejected, not silently ignored")
}

func TestParseRevisionSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		toml    string
		want    Revision
		cycles  int
		wantErr string
		// rerun: [revision] rerun_infrastructure_failures, effective.
		rerun bool
	}{
		{"omitted: three cycles, no trusted bot, re-runs on", "", Revision{MaxCycles: 3, RerunInfrastructureFailures: new(true)}, 3, "", true},
		{"a cap and a linter bot", "[revision]\nmax_cycles = 5\ntrusted_bots = [\"linter[bot]\"]\n",
			Revision{MaxCycles: 5, TrustedBots: []string{"linter[bot]"}, RerunInfrastructureFailures: new(true)}, 5, "", true},
		{"zero means the default", "[revision]\nmax_cycles = 0\n", Revision{RerunInfrastructureFailures: new(true)}, 3, "", true},
		{"a negative cap", "[revision]\nmax_cycles = -1\n", Revision{}, 0, "revision.max_cycles", false},
		{"an empty login", "[revision]\ntrusted_bots = [\"\"]\n", Revision{}, 0, "revision.trusted_bots", false},
		{"a misspelt key", "[revision]\nmax_cylces = 2\n", Revision{}, 0, "unknown key revision.max_cylces", false},
		{"re-runs turned off", "[revision]\nrerun_infrastructure_failures = false\n", Revision{MaxCycles: 3, RerunInfrastructureFailures: new(bool)}, 3, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse("config.toml", []byte(tt.toml))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Revision)
			assert.Equal(t, tt.cycles, cfg.Revision.Cycles())
			assert.Equal(t, tt.rerun, cfg.Revision.RerunsInfrastructure())
		})
	}
}
