package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Path is where the config lives inside a repository.
const Path = ".cogworks/config.toml"

// GateMode is how a stage's gate behaves.
type GateMode string

// Gate modes.
const (
	AutoProceed GateMode = "auto-proceed"
	HumanGated  GateMode = "human-gated"
)

// Config is the validated configuration of one repository.
type Config struct {
	Pipeline       Pipeline            `toml:"pipeline"`
	Gates          map[string]GateMode `toml:"gates"`
	Classification Classification      `toml:"classification"`
	Budgets        Budgets             `toml:"budgets"`
	LLM            LLM                 `toml:"llm"`
	Scenarios      Scenarios           `toml:"scenarios"`
	Interfaces     Interfaces          `toml:"interfaces"`
	Constraints    Constraints         `toml:"constraints"`
	Trust          Trust               `toml:"trust"`
	Revision       Revision            `toml:"revision"`
	Sandbox        Sandbox             `toml:"sandbox"`
	// Domains are the [[domains]] tables: toolchains the built-in command
	// service drives (see domains.go).
	Domains []Domain `toml:"domains"`
}

// DefaultRevisionCycles is [revision] max_cycles when unset.
const DefaultRevisionCycles = 3

// Revision holds [revision]: how CogWorks revises its own pull requests
// on review feedback (docs/commands.md, "Review feedback").
type Revision struct {
	// MaxCycles caps the revision cycles per pull request, review and
	// CI-feedback cycles together (one cap, not one per kind), and
	// separately its merge-conflict resolutions (stages/restack), which
	// the model did not choose to make; 0 (a config built in code) means
	// DefaultRevisionCycles.
	MaxCycles int `toml:"max_cycles"`
	// TrustedBots are bot logins ("linter[bot]") whose review comments
	// are feedback like a writer's; every other bot's are ignored.
	TrustedBots []string `toml:"trusted_bots"`
	// RerunInfrastructureFailures lets CI feedback re-run, once, the
	// failed jobs of a workflow run on a CogWorks PR's head that failed
	// on the infrastructure (nil: true, the default).
	RerunInfrastructureFailures *bool `toml:"rerun_infrastructure_failures"`
}

// RerunsInfrastructure reports whether infrastructure failures are
// re-run ([revision] rerun_infrastructure_failures, default true).
func (r Revision) RerunsInfrastructure() bool {
	return r.RerunInfrastructureFailures == nil || *r.RerunInfrastructureFailures
}

// Cycles is the effective cap on revision cycles per pull request.
func (r Revision) Cycles() int {
	if r.MaxCycles <= 0 {
		return DefaultRevisionCycles
	}
	return r.MaxCycles
}

// Trust holds [trust]: what an outsider can make CogWorks spend or write.
type Trust struct {
	// RequireWriterTrigger makes cogworks:run applied by someone without
	// write permission (issue forms can auto-label) wait, spending
	// nothing, until a writer approves.
	RequireWriterTrigger bool `toml:"require_writer_trigger"`
	// MaxAnswerFiles and MaxAnswerBytes cap one code answer per
	// sub-work-item: past either the attempt fails, so a "file flood"
	// never becomes a commit or a PR.
	MaxAnswerFiles int `toml:"max_answer_files"`
	MaxAnswerBytes int `toml:"max_answer_bytes"`
}

// Sandbox holds [sandbox]: what generated code may do while the domain
// service builds and tests it. Both default to false; network also needs
// the operator's consent (COGWORKS_SANDBOX_ALLOW_NETWORK=1).
type Sandbox struct {
	// Network lets go test, go vet and twins reach the network.
	Network bool `toml:"network"`
	// CGO compiles cgo (CGO_ENABLED=1); off, cgo files are not built.
	CGO bool `toml:"cgo"`
}

// MaxSubIssues is how many sub-issues GitHub lets one issue have: each
// sub-work-item is one, so a plan can have no more.
const MaxSubIssues = 100

// Pipeline holds [pipeline].
type Pipeline struct {
	LockTimeout     Duration `toml:"lock_timeout"`
	MaxSubWorkItems int      `toml:"max_sub_work_items"`
	// SkipDesignFor lists the classification types whose small work
	// items go from intake straight to planning, without a specification
	// or interface PR; [] turns the skip off. Safety-affecting items
	// never skip.
	SkipDesignFor []string `toml:"skip_design_for"`
	// SkipDesignMaxComplexity is the highest estimated complexity (low,
	// medium, high) that still skips.
	SkipDesignMaxComplexity string `toml:"skip_design_max_complexity"`
}

// Classification holds [classification].
type Classification struct {
	SafetyCriticalModules []string `toml:"safety_critical_modules"`
	MaxScopeFiles         int      `toml:"max_scope_files"`
	MaxScopeInterfaces    int      `toml:"max_scope_interfaces"`
}

// Budgets holds [budgets].
type Budgets struct {
	PipelineMaxTokens          int     `toml:"pipeline_max_tokens"`
	PipelineMaxCostUSD         float64 `toml:"pipeline_max_cost_usd"`
	SubWorkItemMaxRetries      int     `toml:"sub_work_item_max_retries"`
	ReviewMaxRemediationCycles int     `toml:"review_max_remediation_cycles"`
	StageMaxRetries            int     `toml:"stage_max_retries"`
}

// LLM holds [llm].
type LLM struct {
	// Provider is one of Providers.
	Provider      string `toml:"provider"`
	Model         string `toml:"model"`
	BaseURL       string `toml:"base_url"`
	ContextWindow int    `toml:"context_window"`
	MaxTokens     int    `toml:"max_output_tokens"`
	// InputPricePerMTok and OutputPricePerMTok price Model in USD per
	// million tokens, overriding the built-in price table; nil when unset.
	// Set both or neither.
	InputPricePerMTok  *float64 `toml:"input_price_per_mtok"`
	OutputPricePerMTok *float64 `toml:"output_price_per_mtok"`
	// ModelsFile is a LiteLLM-format price and limit table (such as a newer
	// copy of model_prices_and_context_window.json), relative to the
	// repository root, consulted before the built-in one; "" uses the
	// built-in table only.
	ModelsFile string `toml:"models_file"`
	// Stream asks Anthropic and OpenAI for streamed answers (the default):
	// a long answer is then bounded by the silence between its events, not
	// by one time-out for the whole request. A server that answers with a
	// plain JSON body is read as such.
	Stream bool `toml:"stream"`
}

// LLMDefaults are a provider's defaults for the [llm] keys left unset.
type LLMDefaults struct {
	Model         string
	ContextWindow int
	MaxTokens     int
}

// ProviderDefaults returns provider's defaults and whether it is known.
// The windows are what CogWorks packs context into, not the model's
// maximum: Anthropic and OpenAI bill long contexts at a premium, Ollama
// serves its num_ctx (4096 unless OLLAMA_CONTEXT_LENGTH raises it; longer
// prompts are silently truncated) and vLLM its --max-model-len. OpenAI's
// default is a reasoning model, whose hidden reasoning counts against the
// output limit, hence the larger one. The hosted defaults are the current
// models of the shipped table (llm.TestProviderDefaultsAreCurrent): gpt-5.6-terra
// is what OpenAI names as gpt-5's replacement.
func ProviderDefaults(provider string) (LLMDefaults, bool) {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case "anthropic", "":
		return LLMDefaults{Model: "claude-sonnet-5", ContextWindow: 200000, MaxTokens: 8192}, true
	case "openai":
		return LLMDefaults{Model: "gpt-5.6-terra", ContextWindow: 200000, MaxTokens: 32768}, true
	case "ollama":
		return LLMDefaults{Model: "qwen3-coder:30b", ContextWindow: 32768, MaxTokens: 8192}, true
	case "vllm":
		return LLMDefaults{Model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", ContextWindow: 32768, MaxTokens: 8192}, true
	}
	return LLMDefaults{}, false
}

// ApplyProviderDefaults fills model, context_window and max_output_tokens
// from the provider's defaults where setModel, setWindow and setOutput
// say the key was not configured, so switching the provider never keeps
// another provider's model or window.
func (l *LLM) ApplyProviderDefaults(setModel, setWindow, setOutput bool) {
	d, ok := ProviderDefaults(l.Provider)
	if !ok {
		return
	}
	if !setModel {
		l.Model = d.Model
	}
	if !setWindow {
		l.ContextWindow = d.ContextWindow
	}
	if !setOutput {
		l.MaxTokens = d.MaxTokens
	}
}

// Providers are the accepted [llm] provider names (and values of
// COGWORKS_LLM_PROVIDER): anthropic, openai, ollama and vllm (both
// OpenAI-compatible servers) and scripted (a replay script, for tests).
func Providers() []string {
	return []string{"anthropic", "openai", "ollama", "vllm", "scripted"}
}

// Scenarios holds [scenarios].
type Scenarios struct {
	Directory    string  `toml:"directory"`
	Trajectories int     `toml:"trajectories"`
	Threshold    float64 `toml:"threshold"`
}

// Interfaces holds [interfaces].
type Interfaces struct {
	Directory string `toml:"directory"`
}

// Constraints holds [constraints]: architecture rules checked
// deterministically.
type Constraints struct {
	ForbiddenImports []ForbiddenImport `toml:"forbidden_imports"`
}

// ForbiddenImport forbids module From from depending on module To.
type ForbiddenImport struct {
	From string `toml:"from"`
	To   string `toml:"to"`
}

// Duration is a time.Duration that decodes from a TOML string like "30m".
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q", b)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// GatedStages are the stages that have a configurable gate after them.
var gatedStages = []string{"intake", "architecture", "interface-design", "planning", "code-generation", "review", "integration"}

// classificationTypes and complexities are the values intake's
// classification takes (classify.Type, classify.Scope.Complexity).
var (
	classificationTypes = []string{"feature", "bug_fix", "refactor", "config_change", "documentation", "dependency_update"}
	complexities        = []string{"low", "medium", "high"}
)

// Default returns the configuration used for every key the file omits.
func Default() Config {
	return Config{
		Pipeline: Pipeline{LockTimeout: Duration{30 * time.Minute}, MaxSubWorkItems: 10,
			SkipDesignFor: []string{"bug_fix"}, SkipDesignMaxComplexity: "low"},
		Gates: map[string]GateMode{
			"intake":           AutoProceed,
			"architecture":     HumanGated,
			"interface-design": AutoProceed,
			"planning":         AutoProceed,
			"code-generation":  AutoProceed,
			"review":           AutoProceed,
			"integration":      AutoProceed,
		},
		Classification: Classification{MaxScopeFiles: 40, MaxScopeInterfaces: 10},
		Budgets: Budgets{
			PipelineMaxTokens: 500000, PipelineMaxCostUSD: 10.0,
			SubWorkItemMaxRetries: 5, ReviewMaxRemediationCycles: 3, StageMaxRetries: 5,
		},
		LLM:        defaultLLM(),
		Scenarios:  Scenarios{Directory: ".cogworks/scenarios", Trajectories: 10, Threshold: 0.95},
		Interfaces: Interfaces{Directory: ".cogworks/interfaces"},
		Trust:      Trust{RequireWriterTrigger: true, MaxAnswerFiles: 50, MaxAnswerBytes: 1 << 20},
		Revision:   Revision{MaxCycles: DefaultRevisionCycles, RerunInfrastructureFailures: new(true)},
	}
}

func defaultLLM() LLM {
	l := LLM{Provider: "anthropic", Stream: true}
	l.ApplyProviderDefaults(false, false, false)
	return l
}

// Load reads <repoDir>/.cogworks/config.toml. A missing file yields
// Default().
func Load(repoDir string) (Config, error) {
	path := filepath.Join(repoDir, Path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read config %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse decodes and validates config text; name is used in errors.
func Parse(name string, data []byte) (Config, error) {
	cfg := Default()
	defaults := cfg.Gates
	cfg.Gates = nil
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return Config{}, fmt.Errorf("%s: line %d: %s", name, perr.Position.Line, perr.Message)
		}
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		return Config{}, fmt.Errorf("%s: unknown key %s", name, strings.Join(keys, ", "))
	}
	cfg.LLM.ApplyProviderDefaults(md.IsDefined("llm", "model"), md.IsDefined("llm", "context_window"), md.IsDefined("llm", "max_output_tokens"))
	for stage, mode := range defaults {
		if _, set := cfg.Gates[stage]; !set {
			if cfg.Gates == nil {
				cfg.Gates = map[string]GateMode{}
			}
			cfg.Gates[stage] = mode
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// Validate checks every value and reports all problems, each naming its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if c.Pipeline.LockTimeout.Duration <= 0 {
		bad("pipeline.lock_timeout", "must be a positive duration, got %s", c.Pipeline.LockTimeout)
	}
	if c.Pipeline.MaxSubWorkItems < 1 || c.Pipeline.MaxSubWorkItems > MaxSubIssues {
		bad("pipeline.max_sub_work_items", "must be between 1 and %d (GitHub's limit of sub-issues per issue), got %d", MaxSubIssues, c.Pipeline.MaxSubWorkItems)
	}
	for _, t := range c.Pipeline.SkipDesignFor {
		if !slices.Contains(classificationTypes, t) {
			bad("pipeline.skip_design_for", "unknown type %q (want one of %s)", t, strings.Join(classificationTypes, ", "))
		}
	}
	if !slices.Contains(complexities, c.Pipeline.SkipDesignMaxComplexity) {
		bad("pipeline.skip_design_max_complexity", "must be one of %s, got %q", strings.Join(complexities, ", "), c.Pipeline.SkipDesignMaxComplexity)
	}
	for stage, mode := range c.Gates {
		if !slices.Contains(gatedStages, stage) {
			bad("gates."+stage, "unknown stage (want one of %s)", strings.Join(gatedStages, ", "))
			continue
		}
		if mode != AutoProceed && mode != HumanGated {
			bad("gates."+stage, "must be %q or %q, got %q", AutoProceed, HumanGated, mode)
		}
	}
	for i, m := range c.Classification.SafetyCriticalModules {
		if strings.TrimSpace(m) == "" {
			bad(fmt.Sprintf("classification.safety_critical_modules[%d]", i), "must not be empty")
		}
	}
	positive := map[string]int{
		"classification.max_scope_files":        c.Classification.MaxScopeFiles,
		"classification.max_scope_interfaces":   c.Classification.MaxScopeInterfaces,
		"budgets.pipeline_max_tokens":           c.Budgets.PipelineMaxTokens,
		"budgets.sub_work_item_max_retries":     c.Budgets.SubWorkItemMaxRetries,
		"budgets.review_max_remediation_cycles": c.Budgets.ReviewMaxRemediationCycles,
		"budgets.stage_max_retries":             c.Budgets.StageMaxRetries,
		"llm.context_window":                    c.LLM.ContextWindow,
		"llm.max_output_tokens":                 c.LLM.MaxTokens,
		"scenarios.trajectories":                c.Scenarios.Trajectories,
		"trust.max_answer_files":                c.Trust.MaxAnswerFiles,
		"trust.max_answer_bytes":                c.Trust.MaxAnswerBytes,
	}
	for key, v := range positive {
		if v < 1 {
			bad(key, "must be ≥ 1, got %d", v)
		}
	}
	if c.Revision.MaxCycles < 0 {
		bad("revision.max_cycles", "must be ≥ 0 (0 means %d), got %d", DefaultRevisionCycles, c.Revision.MaxCycles)
	}
	for _, b := range c.Revision.TrustedBots {
		if strings.TrimSpace(b) == "" || strings.ContainsAny(b, " \t/@") {
			bad("revision.trusted_bots", "%q is not a login", b)
		}
	}
	// NaN compares false with everything, so a NaN budget would never be
	// exceeded: only finite numbers are budgets.
	if cost := c.Budgets.PipelineMaxCostUSD; !(cost > 0) || math.IsInf(cost, 0) {
		bad("budgets.pipeline_max_cost_usd", "must be a finite number > 0, got %g", cost)
	}
	if !slices.Contains(Providers(), c.LLM.Provider) {
		bad("llm.provider", "must be one of %s, got %q", strings.Join(Providers(), ", "), c.LLM.Provider)
	}
	in, out := c.LLM.InputPricePerMTok, c.LLM.OutputPricePerMTok
	if (in == nil) != (out == nil) {
		bad("llm.input_price_per_mtok", "set together with llm.output_price_per_mtok (or neither)")
	}
	for key, p := range map[string]*float64{"llm.input_price_per_mtok": in, "llm.output_price_per_mtok": out} {
		// A NaN price would make every cost NaN, which no budget stops and
		// the snapshot's JSON cannot hold.
		if p != nil && (!(*p >= 0) || math.IsInf(*p, 0)) {
			bad(key, "must be a finite number ≥ 0, got %g", *p)
		}
	}
	if c.LLM.Model == "" {
		bad("llm.model", "must not be empty")
	}
	if th := c.Scenarios.Threshold; !(th >= 0 && th <= 1) { // NaN fails both
		bad("scenarios.threshold", "must be within [0, 1], got %g", c.Scenarios.Threshold)
	}
	for key, dir := range map[string]string{"scenarios.directory": c.Scenarios.Directory, "interfaces.directory": c.Interfaces.Directory} {
		if dir == "" || filepath.IsAbs(dir) || strings.HasPrefix(filepath.Clean(dir), "..") {
			bad(key, "must be a relative path inside the repository, got %q", dir)
		}
	}
	for i, f := range c.Constraints.ForbiddenImports {
		if f.From == "" || f.To == "" {
			bad(fmt.Sprintf("constraints.forbidden_imports[%d]", i), "needs both from and to")
		}
	}
	validateDomains(c.Domains, bad)
	// Map iteration order is random; sort so the message is stable.
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// GateMode returns the configured mode for a stage (auto-proceed when the
// stage has no gate entry).
func (c Config) GateMode(stage string) GateMode {
	if m, ok := c.Gates[stage]; ok {
		return m
	}
	return AutoProceed
}
