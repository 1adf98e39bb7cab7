package factory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/repotrust"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/workspace"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/xval"
)

// Wire installs the production stage executors into f. The returned
// function stops the built-in Go domain service if a step started it; call
// it before the process exits.
func Wire(f *Factory) (stop func()) {
	b := NewBuiltinDomain(f)
	f.Executors = func(ctx context.Context, gh Client, repo github.Repo, dir string, cfg config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		return f.ProductionExecutors(ctx, gh, workspace.Checkout{Repo: repo, Dir: dir, Config: cfg}, b)
	}
	return b.Stop
}

// Provider builds the LLM provider lc names through NewProvider.
func (f *Factory) Provider(lc llm.Config) (llm.Provider, error) {
	if f.NewProvider == nil {
		return nil, fmt.Errorf("provider %q: this build wires no LLM provider constructor (Factory.NewProvider)", lc.Provider)
	}
	return f.NewProvider(lc)
}

// LLMConfig resolves the provider from the repo config and the
// COGWORKS_LLM_* environment overrides.
func (f *Factory) LLMConfig(cfg config.Config) llm.Config {
	l := f.WithLLMEnv(cfg).LLM
	return llm.Config{Provider: l.Provider, BaseURL: l.BaseURL, Model: l.Model, Stream: l.Stream, APIKey: f.Env("COGWORKS_LLM_API_KEY")}
}

// WithLLMEnv applies COGWORKS_LLM_PROVIDER, _BASE_URL and _MODEL to cfg.
// A provider switched by the environment brings its own default model,
// context window and output limit where the config left them at the
// configured provider's defaults, so an Ollama run never inherits
// Anthropic's model name and 200k window.
func (f *Factory) WithLLMEnv(cfg config.Config) config.Config {
	if v := f.Env("COGWORKS_LLM_PROVIDER"); v != "" && !strings.EqualFold(v, cfg.LLM.Provider) {
		old, _ := config.ProviderDefaults(cfg.LLM.Provider)
		l := &cfg.LLM
		l.Provider = v
		l.ApplyProviderDefaults(l.Model != old.Model, l.ContextWindow != old.ContextWindow, l.MaxTokens != old.MaxTokens)
	}
	if v := f.Env("COGWORKS_LLM_BASE_URL"); v != "" {
		cfg.LLM.BaseURL = v
	}
	if v := f.Env("COGWORKS_LLM_MODEL"); v != "" {
		cfg.LLM.Model = v
	}
	return cfg
}

// LLMConfigFor is LLMConfig, without the repository's llm.base_url when
// its configuration is ignored: that would send the operator's LLM key
// to an endpoint of the repository author's choosing.
func (f *Factory) LLMConfigFor(ctx context.Context, cfg config.Config) llm.Config {
	lc := f.LLMConfig(cfg)
	if reason := repotrust.RepoConfigIgnored(ctx); reason != "" && lc.BaseURL != "" && f.Env("COGWORKS_LLM_BASE_URL") == "" {
		f.Logger().Warn(fmt.Sprintf("repository configuration ignored: llm.base_url %q (%s)", lc.BaseURL, reason))
		lc.BaseURL = ""
	}
	return lc
}

// NewGateway builds the LLM gateway for a workspace around provider p.
func (f *Factory) NewGateway(p llm.Provider, workspace string, cfg config.Config, model string) *llm.Gateway {
	g := llm.NewGateway(p, prompts.Set{RepoDir: workspace})
	g.Model = model
	g.MaxTokens = cfg.LLM.MaxTokens
	budget := f.Budget(cfg)
	g.Budget = budget.LLM()
	if budget.Known {
		g.OutputLimit = budget.Info.MaxOutputTokens
	}
	if w := budget.Warning(); w != "" {
		f.Logger().Warn(w)
	}
	g.Redact = f.Redactor().Redact
	if f.Metrics != nil {
		g.Observer = llmMetrics{f.Metrics}
	}
	return g
}

// llmMetrics tells the metrics about each answered LLM call.
type llmMetrics struct{ m *metrics.Metrics }

// LLMUsage implements llm.UsageObserver.
func (o llmMetrics) LLMUsage(stage string, u llm.Usage) {
	o.m.ObserveLLMCall(metrics.LLMCall{Stage: stage, Model: u.Model,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD})
}

// The production client serves every command and stage: a method missing
// from it is a build error, not a run-time one.
var _ Client = (*github.Client)(nil)

// ProductionExecutors builds the dependencies of the stages for the
// checked-out repository co — the LLM provider, the registered domain
// services, the interface registry and the scenarios, all read from its
// Dir under its Config — and hands them to stages.Executors, where every
// stage is registered.
func (f *Factory) ProductionExecutors(ctx context.Context, gh Client, co workspace.Checkout, builtin *BuiltinDomain) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
	repo, dir, cfg := co.Repo, co.Dir, co.Config
	ctx = WithDomainTenant(ctx, RepoTenant(repo)) // serve has named the installation already
	var provider llm.Provider
	lc := f.LLMConfigFor(ctx, cfg)
	switch {
	case f.LLMProvider != nil:
		provider = f.LLMProvider
	case strings.EqualFold(strings.TrimSpace(lc.Provider), "scripted"):
		// The demo's offline answers, for end-to-end tests of the real
		// binary; they only fit the demo's sample repository.
		p, err := demo.Script()
		if err != nil {
			return nil, nil, err
		}
		f.Logger().Warn("LLM provider \"scripted\": answering with the demo's offline script (tests only)")
		provider = p
	default:
		if err := f.Budget(cfg).ModelError(); err != nil {
			return nil, nil, &UsageError{Err: err}
		}
		if LLMKeyMissing(lc) {
			return nil, nil, &UsageError{Err: fmt.Errorf("llm: %w", MissingLLMKey(lc.Provider))}
		}
		p, err := f.Provider(lc)
		if err != nil {
			return nil, nil, &UsageError{Err: fmt.Errorf("llm: %w", err)}
		}
		provider = p
	}
	d, reg, err := f.StageDeps(ctx, gh, dir, cfg, builtin)
	if err != nil {
		return nil, nil, err
	}
	promptDir := dir
	if repotrust.RepoConfigIgnored(ctx) != "" {
		promptDir = "" // the embedded prompts only
	}
	d.LLM = f.NewGateway(provider, promptDir, cfg, lc.Model)
	execs := stages.Executors(d)
	if reason := repotrust.RepoConfigIgnored(ctx); reason != "" {
		if w := repotrust.RepoConfigWarning(dir, reason); w != "" {
			for st, e := range execs {
				execs[st] = repotrust.WarnExecutor{Inner: e, Warning: w}
			}
		}
	}
	return execs, reg, nil
}

// StageDeps assembles everything but the LLM gateway. When the workspace
// registers no domain service and is a Go module, builtin (if not nil)
// provides the reference Go domain service.
func (f *Factory) StageDeps(ctx context.Context, gh Client, workspace string, cfg config.Config, builtin *BuiltinDomain) (stages.Deps, engine.RegistryValidator, error) {
	d := stages.Deps{GitHub: gh, Deps: stagekit.Deps{
		Workspace: workspace, Repo: contextpack.LocalRepo{Dir: workspace},
		Clock: f.Clock, Logger: f.Logger(),
	}}
	cfgs, err := f.DomainServices(ctx, workspace, cfg, builtin)
	if err != nil {
		return stages.Deps{}, nil, err
	}
	if len(cfgs) > 0 {
		set := domain.Connect(ctx, cfgs)
		// Each request goes to the services whose artifact_types cover its
		// paths; a path only an unavailable service could cover halts that
		// call (ASSERT-EXT-001), earlier stages still run.
		d.Domain = domain.NewRouter(set)
		res, _ := set.Resolve(nil) // no artifacts: never halts, lists the skipped services
		d.Warnings = res.Warnings()
		if t := domainTenant(ctx); t != "" {
			d.Domain = tenantDomain{Inner: d.Domain, Tenant: t}
		}
		if domainRepoInline(ctx) {
			d.Domain = inlineRepoDomain{Inner: d.Domain}
		}
		for _, st := range set.Services() {
			if st.Available() {
				d.Services = append(d.Services, xval.ServiceInfo{Name: st.Config.Name, Domain: st.Domain(), InterfaceVersions: st.Handshake.InterfaceVersions})
			}
		}
	}
	regDir := filepath.Join(workspace, cfg.Interfaces.Directory)
	reg, err := xval.LoadRegistry(regDir)
	if err != nil {
		// Reported by the registry validator before any stage runs.
		reg = nil
	}
	d.Registry = reg
	fsys := os.DirFS(workspace)
	if d.Scenarios, err = scenario.LoadScenarios(ctx, fsys, cfg.Scenarios.Directory); err != nil {
		return stages.Deps{}, nil, &UsageError{Err: fmt.Errorf("scenarios: %w", err)}
	}
	// Twins are repository code: their output reaches the log redacted.
	twinOut := secrets.NewWriter(f.IO.ErrOut, f.Redactor())
	runner := scenario.NewExecTwinRunner(workspace, twinOut, twinOut)
	d.Twins = scenario.Twins{Runner: runner}
	if reason := repotrust.RepoConfigIgnored(ctx); reason != "" {
		if w := repotrust.RepoConfigWarning(workspace, reason); w != "" {
			f.Logger().Warn(w)
			d.Warnings = append(d.Warnings, w)
		}
	} else if d.Twins.Defs, err = scenario.LoadTwins(ctx, fsys, repotrust.RepoTwinsDir); err != nil {
		return stages.Deps{}, nil, &UsageError{Err: fmt.Errorf("twins: %w", err)}
	}
	if len(d.Twins.Defs) > 0 {
		runner.Confine(f.TwinSandbox(ctx, cfg))
	}
	services := d.Services
	if len(cfgs) == 0 {
		services = nil // no registration at all: skip service checks
	}
	return d, registryValidator{dir: regDir, root: workspace, services: services}, nil
}

// DomainServices returns the registered domain services: those of the
// services file, or, when the workspace has none and is a Go module, the
// built-in Go domain service; then a built-in command service for each
// [[domains]] entry of cfg (after the file's services, so a registered
// service wins the file types both cover). A services file named by
// COGWORKS_DOMAIN_SERVICES_CONFIG must exist.
func (f *Factory) DomainServices(ctx context.Context, workspace string, cfg config.Config, builtin *BuiltinDomain) ([]domain.ServiceConfig, error) {
	cfgs, err := f.registeredServices(ctx, workspace, builtin)
	if err != nil || builtin == nil {
		return cfgs, err
	}
	for _, d := range cfg.Domains {
		// A service that cannot start is an infrastructure failure, as
		// for the Go service.
		c, err := builtin.Command(ctx, d)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, c)
	}
	return cfgs, nil
}

// registeredServices is domainServices without the [[domains]] services.
func (f *Factory) registeredServices(ctx context.Context, workspace string, builtin *BuiltinDomain) ([]domain.ServiceConfig, error) {
	override := f.Env("COGWORKS_DOMAIN_SERVICES_CONFIG")
	path := domain.ServicesPath(workspace, override)
	_, err := os.Stat(path)
	if override == "" && repotrust.RepoConfigIgnored(ctx) != "" {
		// The operator's file (the override) is always honoured; the
		// repository's may point at an endpoint of its author's choosing.
		err = fs.ErrNotExist
	}
	switch {
	case err == nil:
		cfgs, err := domain.LoadServices(path)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		return cfgs, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("domain services %s: %w", path, err)
	case override != "":
		return nil, &UsageError{Err: fmt.Errorf("COGWORKS_DOMAIN_SERVICES_CONFIG: %s does not exist", path)}
	}
	if _, err := os.Stat(filepath.Join(workspace, "go.mod")); err != nil {
		f.Logger().Info("no domain service registered in " + domain.DefaultServicesFile + " and no go.mod: only [[domains]] of " + config.Path + " are served")
		return nil, nil
	}
	if builtin == nil {
		return nil, nil
	}
	// A service that cannot start is an infrastructure failure (exit 1,
	// state untouched): the next invocation tries again.
	cfg, err := builtin.Start(ctx)
	if err != nil {
		return nil, err
	}
	return []domain.ServiceConfig{cfg}, nil
}

// registryValidator runs xval.ValidateDir before any stage (ASSERT-XDOM-001).
type registryValidator struct {
	dir, root string
	services  []xval.ServiceInfo
}

func (r registryValidator) ValidateRegistry(context.Context) error {
	_, err := xval.ValidateDir(r.dir, r.root, r.services)
	return err
}

// LoadServices reads a services file; a missing file registers nothing.
func LoadServices(path string) ([]domain.ServiceConfig, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, nil
	}
	return domain.LoadServices(path)
}

// TwinSandbox is how twins run: in the sandbox this host allows (probed
// once per wiring, only for repositories that have twins), with the
// network when the repository asks for it and the operator consents.
func (f *Factory) TwinSandbox(ctx context.Context, cfg config.Config) scenario.TwinSandbox {
	probe := f.ProbeSandbox
	if probe == nil {
		probe = sandbox.Probe
	}
	logger := f.Logger()
	iso := probe(ctx)
	logger.Info("twins sandbox", "isolation", iso.String())
	return scenario.TwinSandbox{
		Isolation: iso,
		Unsafe:    f.Env(sandbox.UnsafeEnv) == "1",
		Network:   cfg.Sandbox.Network && f.Env(sandbox.AllowNetworkEnv) == "1",
		Environ:   []string{"PATH=" + f.Env("PATH")},
		Warn:      func(msg string) { logger.Warn(msg) },
	}
}
