package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/xval"
)

// DoctorOptions are the flags of `cogworks doctor`.
type DoctorOptions struct {
	Repo      string
	Workspace string
	Offline   bool
}

// Validate checks the flags.
func (o *DoctorOptions) Validate() error {
	if _, err := github.ParseRepo(o.Repo); err != nil {
		return fmt.Errorf("--repo: %w", err)
	}
	return nil
}

// NewCmdDoctor builds `cogworks doctor`. runF replaces the run function in
// tests.
func NewCmdDoctor(f *factory.Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check a repository's CogWorks set-up, one line per check with a fix",
		Long: `Check, in order: the GitHub credentials and their permissions (issues,
contents and pull requests must be writable), the cogworks:* labels, the
config, the interface registry, the domain services' handshake, the
[[domains]]' toolchains (tools on PATH, node_modules, a python with pytest),
the sandbox, and the LLM
(one tiny request; skipped with --offline). Each line reads
"ok|warn|FAIL|skip  check  detail", with "fix:" on the next line when the
check did not pass. warn means CogWorks could not tell; it does not fail.` +
			factory.HelpEnv(factory.EnvRepo, factory.EnvWorkspace, factory.EnvGitHub, factory.EnvLLM, factory.EnvServices, factory.EnvTrust, factory.EnvSandbox, factory.EnvLog) +
			factory.HelpExit("0  every check passed (or warned, or was skipped)",
				"1  at least one check failed",
				"2  bad usage or a missing workspace"),
		Example: `  cogworks doctor --repo acme/widgets
  cogworks doctor --offline                 # no LLM request; repo from $GITHUB_REPOSITORY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			factory.DefaultTarget(f, &opts.Repo, &opts.Workspace)
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDoctor(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY, else the origin remote)")
	fl.StringVar(&opts.Workspace, "workspace", "", "repository checkout (default $GITHUB_WORKSPACE or .)")
	fl.BoolVar(&opts.Offline, "offline", false, "skip the LLM request")
	return cmd
}

func runDoctor(ctx context.Context, f *factory.Factory, opts *DoctorOptions) error {
	if err := factory.CheckWorkspace(opts.Workspace); err != nil {
		return err
	}
	checks := runChecks(ctx, f, opts)
	failed := 0
	// A check's detail may quote a provider's answer, which may quote the
	// key: doctor runs in CI logs too.
	r := f.Redactor()
	for _, c := range checks {
		fmt.Fprintf(f.IO.Out, "%-4s  %-16s %s\n", c.Status, c.Name, r.Redact(c.Detail))
		if c.Fix != "" && c.Status != factory.CheckOK {
			fmt.Fprintf(f.IO.Out, "      %-16s fix: %s\n", "", r.Redact(c.Fix))
		}
		if c.Status == factory.CheckFail {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks))
	}
	return nil
}

// runChecks runs every check and returns one result each, in order.
func runChecks(ctx context.Context, f *factory.Factory, opts *DoctorOptions) []factory.Check {
	repo, _ := github.ParseRepo(opts.Repo)
	var checks []factory.Check
	gh, err := f.Client(ctx)
	if err != nil {
		checks = append(checks,
			factory.Check{Name: "credentials", Status: factory.CheckFail, Detail: err.Error(),
				Fix: "set COGWORKS_GITHUB_TOKEN (or GITHUB_TOKEN; with the GitHub CLI: export COGWORKS_GITHUB_TOKEN=$(gh auth token)), or COGWORKS_GITHUB_APP_ID, COGWORKS_GITHUB_APP_PRIVATE_KEY and COGWORKS_GITHUB_INSTALLATION_ID"},
			factory.Check{Name: "labels", Status: factory.CheckSkip, Detail: "no GitHub client"})
	} else {
		checks = append(checks, checkAccess(ctx, gh, repo), factory.CheckIdentity(ctx, f, gh), checkActionsPulls(ctx, gh, repo), checkLabels(ctx, gh, repo))
	}
	cfg, cfgCheck := checkConfig(opts.Workspace)
	checks = append(checks, cfgCheck, checkRegistry(opts.Workspace, cfg), CheckServices(ctx, f, opts.Workspace, cfg.Domains),
		CheckToolchains(ctx, f, opts.Workspace, cfg.Domains), CheckSandbox(ctx, f))
	if opts.Offline {
		checks = append(checks, factory.Check{Name: "llm", Status: factory.CheckSkip, Detail: "--offline"})
	} else {
		checks = append(checks, checkLLM(ctx, f, cfg))
	}
	return checks
}

// CheckSandbox reports which isolation the built-in Go domain service
// runs generated code under on this host.
func CheckSandbox(ctx context.Context, f *factory.Factory) factory.Check {
	probe := f.ProbeSandbox
	if probe == nil {
		probe = sandbox.Probe
	}
	iso := probe(ctx)
	c := factory.Check{Name: "sandbox", Fix: sandbox.Fix}
	switch {
	case iso.Available():
		c.Status, c.Detail = factory.CheckOK, iso.String()+fmt.Sprintf("; disk quotas: workspace %d MiB, build cache layer %d MiB per repository",
			goservice.DefaultWorkspaceBytes>>20, goservice.DefaultCacheBytes>>20)+": generated code runs isolated, without secrets or network"
		if f.Env(sandbox.AllowNetworkEnv) == "1" {
			c.Detail += " (" + sandbox.AllowNetworkEnv + "=1: repositories with [sandbox] network = true get the network)"
		}
	case f.Env(sandbox.UnsafeEnv) == "1":
		c.Status, c.Detail = factory.CheckWarn, iso.String()+"; "+sandbox.UnsafeEnv+"=1: generated code runs UNISOLATED with this user's rights"
	default:
		c.Status, c.Detail = factory.CheckFail, iso.String()+"; the Go domain service refuses to build or test generated code"
	}
	return c
}

func checkConfig(workspace string) (config.Config, factory.Check) {
	c := factory.Check{Name: "config"}
	path := filepath.Join(workspace, config.Path)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = factory.CheckWarn, fmt.Sprintf("no %s: the built-in defaults apply", config.Path)
		c.Fix = "run `cogworks init` to write the defaults, commented, for editing"
		return config.Default(), c
	}
	cfg, err := config.Load(workspace)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, err.Error()
		c.Fix = "correct the key named above; `cogworks init --dry-run` shows every key with its default"
		return config.Default(), c
	}
	c.Status, c.Detail = factory.CheckOK, fmt.Sprintf("%s valid (provider %s, model %s)", config.Path, cfg.LLM.Provider, cfg.LLM.Model)
	return cfg, c
}

func checkRegistry(workspace string, cfg config.Config) factory.Check {
	c := factory.Check{Name: "registry"}
	dir := filepath.Join(workspace, cfg.Interfaces.Directory)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = factory.CheckSkip, fmt.Sprintf("no interface registry (%s does not exist)", cfg.Interfaces.Directory)
		return c
	}
	report, err := xval.ValidateDir(dir, workspace, nil)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, factory.OneLine(err.Error(), 300)
		c.Fix = "run `cogworks registry validate` for every finding"
		return c
	}
	n := 0
	if report.Registry != nil {
		n = len(report.Registry.Interfaces)
	}
	c.Status, c.Detail = factory.CheckOK, fmt.Sprintf("%s: %d interface(s), valid", cfg.Interfaces.Directory, n)
	return c
}

// CheckServices handshakes the domain services the workspace registers
// (and the built-in one) and reports which answered.
func CheckServices(ctx context.Context, f *factory.Factory, workspace string, domains []config.Domain) factory.Check {
	c := factory.Check{Name: "domain services"}
	path := domain.ServicesPath(workspace, f.Env("COGWORKS_DOMAIN_SERVICES_CONFIG"))
	cfgs, err := factory.LoadServices(path)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, err.Error()
		c.Fix = "correct the services file; see docs/domain-services.md"
		return c
	}
	extra, err := commandTypes(domains)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, err.Error()
		c.Fix = "correct [[domains]] in " + config.Path + " (docs/domain-services.md)"
		return c
	}
	if len(cfgs) == 0 {
		return checkBuiltinService(ctx, f, workspace, path, extra)
	}
	var bad, good []string
	types := extra
	for _, r := range domain.HealthTable(ctx, cfgs) {
		if r.Status != "ok" {
			bad = append(bad, fmt.Sprintf("%s %s: %s", r.Name, r.Status, r.Error))
			continue
		}
		good = append(good, fmt.Sprintf("%s (%s %s)", r.Name, r.Domain, r.Version))
		types = append(types, r.ArtifactTypes...)
	}
	if len(bad) > 0 {
		c.Status, c.Detail = factory.CheckFail, strings.Join(bad, "; ")
		c.Fix = "start the service or correct its endpoint in " + path + "; `cogworks health` shows the handshake"
		return c
	}
	c.Status, c.Detail = factory.CheckOK, "handshake answered by "+strings.Join(good, ", ")
	return factory.Coverage(c, workspace, types)
}

// checkBuiltinService reports what serves a workspace whose services file
// registers nothing: in a Go module the built-in Go domain service, which
// the check starts and handshakes as a step would (the Action re-executes
// its own binary for it); elsewhere nothing, and the stages that need a
// domain service would halt.
func checkBuiltinService(ctx context.Context, f *factory.Factory, workspace, path string, extra []string) factory.Check {
	c := factory.Check{Name: "domain services"}
	if _, err := os.Stat(filepath.Join(workspace, "go.mod")); err != nil && len(extra) > 0 {
		c.Status, c.Detail = factory.CheckOK, "the built-in command service serves "+strings.Join(extra, " ")+" ([[domains]] of "+config.Path+")"
		return factory.Coverage(c, workspace, extra)
	} else if err != nil {
		c.Status = factory.CheckWarn
		c.Detail = fmt.Sprintf("none registered in %s, and no go.mod for the built-in Go service: interface design, code generation and scenario validation would halt", path)
		c.Fix = "register your domain's service in " + path + " (docs/domain-services.md)"
		if missing := factory.UncoveredLanguages(factory.DetectLanguages(workspace), nil); len(missing) > 0 {
			c.Status = factory.CheckFail
			c.Detail = fmt.Sprintf("none registered in %s; %s", path, factory.LanguagesNote(missing))
		}
		return c
	}
	newBuiltin := f.Builtin
	if newBuiltin == nil {
		newBuiltin = factory.NewBuiltinDomain
	}
	b := newBuiltin(f)
	// The child's JSON log is for operators' log pipelines, not doctor's
	// report: keep its tail for a failure instead.
	var logs tailBuffer
	b.Stderr, b.Logger = &logs, slog.New(slog.DiscardHandler)
	defer b.Stop()
	cfg, err := b.Start(ctx)
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, "the built-in Go domain service did not start: "+err.Error()+logs.suffix()
		c.Fix = "run `cogworks domain-go serve --socket /tmp/go.sock` to see why; docs/sandbox.md for isolation"
		return c
	}
	r := domain.HealthTable(ctx, []domain.ServiceConfig{cfg})[0] // one row per service
	if r.Status != "ok" {
		c.Status, c.Detail = factory.CheckFail, fmt.Sprintf("the built-in Go domain service started but its handshake failed: %s %s%s", r.Status, r.Error, logs.suffix())
		return c
	}
	c.Status = factory.CheckOK
	c.Detail = fmt.Sprintf("the built-in Go service (domain %s %s) serves this Go module: handshake answered; nothing is registered in %s", r.Domain, r.Version, path)
	return factory.Coverage(c, workspace, append(r.ArtifactTypes, extra...))
}

// commandTypes are the artifact types the configuration's [[domains]]
// give the built-in command service.
func commandTypes(domains []config.Domain) ([]string, error) {
	var types []string
	for _, d := range domains {
		r, err := cmdservice.Resolve(d)
		if err != nil {
			return nil, err
		}
		types = append(types, r.ArtifactTypes...)
	}
	return types, nil
}

// tailBuffer keeps the last tailBytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// suffix is the kept output as "; output: …", or "" when there is none.
func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := strings.TrimSpace(string(t.buf)); s != "" {
		return "; output: " + s
	}
	return ""
}

// doctorLLMTimeout bounds the LLM check's single request.
const doctorLLMTimeout = 60 * time.Second

func checkLLM(ctx context.Context, f *factory.Factory, cfg config.Config) factory.Check {
	c := factory.Check{Name: "llm"}
	lc := f.LLMConfig(cfg)
	// A model past its provider's retirement date fails with the
	// replacement named; one with a date ahead passes with a warning.
	clock := f.Clock
	if clock == nil {
		clock = time.Now
	}
	retiring, err := f.Budget(cfg).Table.Retirement(lc.Model, clock())
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, err.Error()
		c.Fix = "set [llm] model in " + config.Path + " (or COGWORKS_LLM_MODEL) to a current model"
		return c
	}
	provider := f.LLMProvider
	if provider == nil {
		if err := f.Budget(cfg).ModelError(); err != nil {
			c.Status, c.Detail = factory.CheckFail, err.Error()
			c.Fix = "correct [llm] model, or give its prices and limits in " + config.Path
			return c
		}
		if factory.LLMKeyMissing(lc) {
			c.Status, c.Detail = factory.CheckFail, factory.MissingLLMKey(lc.Provider).Error()
			c.Fix = "set COGWORKS_LLM_API_KEY (in Actions: the secret " + llm.KeySecret(lc.Provider) + "), or choose another provider with [llm] provider / COGWORKS_LLM_PROVIDER"
			return c
		}
		p, err := f.Provider(lc)
		if err != nil {
			c.Status, c.Detail = factory.CheckFail, err.Error()
			c.Fix = "set COGWORKS_LLM_API_KEY, or choose another provider with [llm] provider / COGWORKS_LLM_PROVIDER"
			return c
		}
		provider = p
	}
	ctx, cancel := context.WithTimeout(ctx, doctorLLMTimeout)
	defer cancel()
	// The providers render the limit as max_completion_tokens for OpenAI's
	// reasoning models (which refuse max_tokens); 16 leaves a short answer
	// room without paying for one.
	resp, err := provider.Complete(ctx, llm.Request{
		System:    "You are a connectivity check. Answer with the single word OK.",
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: "ping"}},
		MaxTokens: 16, Model: lc.Model, Template: "doctor-ping",
	})
	if err != nil {
		c.Status, c.Detail = factory.CheckFail, fmt.Sprintf("%s model %s: %v", orAnthropic(lc.Provider), lc.Model, err)
		c.Fix = "check the API key, the model name and the base URL; use --offline to skip this check"
		return c
	}
	b := f.Budget(cfg)
	c.Status = factory.CheckOK
	c.Detail = fmt.Sprintf("%s model %s answered (%d in / %d out tokens)", orAnthropic(lc.Provider), lc.Model, resp.InputTokens, resp.OutputTokens)
	if !b.Priced {
		c.Status, c.Fix = factory.CheckWarn, "set [llm] input_price_per_mtok and output_price_per_mtok so the cost budget holds"
		c.Detail += "; no price known for the model: only the token budget is enforced"
	}
	if retiring != "" {
		c.Status = factory.CheckWarn
		c.Detail += "; " + retiring
		c.Fix = cmp.Or(c.Fix, "move [llm] model in "+config.Path+" to a current model before that date")
	}
	return c
}

func orAnthropic(provider string) string {
	if provider == "" {
		return llm.ProviderAnthropic
	}
	return provider
}
