package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/installdir"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/repotrust"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/server"
	"github.com/cogworks/cogworks/internal/workspace"
)

// envDomainInlineRepo is the environment form of --domain-inline-repo.
const envDomainInlineRepo = "COGWORKS_DOMAIN_INLINE_REPO"

// ServeOptions are the flags of `cogworks serve`.
type ServeOptions struct {
	Listen    string
	Workers   int
	QueueSize int
	MaxSteps  int
	Grace     time.Duration
	// CacheDir holds the per-repository trees fetched through the API.
	CacheDir string
	// RateReserve is the number of REST requests of an installation's
	// rate-limit window left unused: below it, jobs are deferred (0
	// disables).
	RateReserve int
	// ReplayWindow is how long an accepted body's hash is remembered.
	ReplayWindow time.Duration
	// DomainInlineRepo sends the repository's files inside each domain
	// service request, for a service that cannot see this process's
	// files (its own container).
	DomainInlineRepo bool
	// TrustRepoConfig allow-lists repositories whose twins, services.toml
	// and prompt overrides are used (see RepoTrust); "" trusts none.
	TrustRepoConfig string
	// RedeliverInterval is how often the App's failed deliveries are
	// redelivered (0 disables); RedeliverWindow how far back they are read.
	RedeliverInterval time.Duration
	RedeliverWindow   time.Duration
}

// Validate checks the flags.
func (o *ServeOptions) Validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("--workers must be ≥ 1, got %d", o.Workers)
	case o.QueueSize < 1:
		return fmt.Errorf("--queue-size must be ≥ 1, got %d", o.QueueSize)
	case o.MaxSteps < 1:
		return fmt.Errorf("--max-steps must be ≥ 1, got %d", o.MaxSteps)
	case o.Grace < 0:
		return fmt.Errorf("--grace must not be negative, got %s", o.Grace)
	case o.RateReserve < 0:
		return fmt.Errorf("--rate-reserve must be ≥ 0, got %d", o.RateReserve)
	case o.ReplayWindow <= 0:
		return fmt.Errorf("--replay-window must be positive, got %s", o.ReplayWindow)
	case o.RedeliverInterval < 0:
		return fmt.Errorf("--redeliver-interval must not be negative, got %s", o.RedeliverInterval)
	case o.RedeliverWindow < 0 || o.RedeliverWindow > 72*time.Hour:
		return fmt.Errorf("--redeliver-window must be between 0 (the default, 6h) and 72h (GitHub keeps 3 days of deliveries), got %s", o.RedeliverWindow)
	}
	if _, err := repotrust.ParseRepoTrust(o.TrustRepoConfig); err != nil {
		return fmt.Errorf("--trust-repo-config: %w", err)
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fmt.Errorf("--listen %q: %w", o.Listen, err)
	}
	return nil
}

// NewCmdServe builds `cogworks serve`.
func NewCmdServe(f *factory.Factory) *cobra.Command {
	opts := &ServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve GitHub App webhooks for every repository that installed the App",
		Long: `Receive GitHub webhook deliveries on POST /webhook (signed with
COGWORKS_WEBHOOK_SECRET) and step the work items they name on a bounded queue.
With COGWORKS_GITHUB_APP_ID and COGWORKS_GITHUB_APP_PRIVATE_KEY each delivery is
handled as the installation it names; with a token (COGWORKS_GITHUB_TOKEN) one
identity serves every repository the token can reach. Each repository's
.cogworks/config.toml and files are read through the API into a private
directory per installation. A repository's .cogworks/services.toml, twins,
prompt overrides and llm.base_url are ignored unless --trust-repo-config
lists it. Deliveries are refused from their headers before the body is read
when they cannot be genuine, and a signed body replayed under a new delivery
id is dropped (see docs/serve.md). Deliveries for one issue merge into one
work item; a delivery refused when --queue-size items wait is redelivered
from the App's delivery log (at start, every --redeliver-interval and soon
after a refusal); the process-all cron recovers the rest. Also serves
/healthz, /readyz and /metrics. SIGTERM drains within --grace.` +
			factory.HelpEnv("COGWORKS_WEBHOOK_SECRET  the App's webhook secret (required); COGWORKS_WEBHOOK_SECRET_PREVIOUS  the secret being rotated out, accepted too while set",
				"COGWORKS_GITHUB_APP_ID, COGWORKS_GITHUB_APP_PRIVATE_KEY  the App (or a token: COGWORKS_GITHUB_TOKEN); COGWORKS_GITHUB_API_URL  GitHub Enterprise / simulator API URL",
				factory.EnvLLM, factory.EnvServices, factory.EnvTrust, factory.EnvSandbox,
				"COGWORKS_TRUST_REPO_CONFIG  repositories whose executable config is used (as --trust-repo-config); COGWORKS_DOMAIN_INLINE_REPO  true: as --domain-inline-repo",
				factory.EnvLog) +
			factory.HelpExit("0  drained and stopped after SIGTERM or SIGINT",
				"1  the server failed (listen error, a step could not be abandoned cleanly)",
				"2  bad usage or configuration (no webhook secret, bad flag values, missing credentials)"),
		Example: `  COGWORKS_WEBHOOK_SECRET=… COGWORKS_GITHUB_APP_ID=12345 COGWORKS_GITHUB_APP_PRIVATE_KEY=/etc/cogworks/app.pem \
    cogworks serve --listen :8080 --workers 4 --queue-size 1000
  # locally, against the demo's simulator (see docs/serve.md)
  cogworks serve --listen 127.0.0.1:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("trust-repo-config") {
				opts.TrustRepoConfig = f.Env(repotrust.EnvTrustRepoConfig)
			}
			if !cmd.Flags().Changed("domain-inline-repo") {
				switch v := strings.ToLower(strings.TrimSpace(f.Env(envDomainInlineRepo))); v {
				case "", "0", "false":
				case "1", "true":
					opts.DomainInlineRepo = true
				default:
					return &factory.UsageError{Err: fmt.Errorf("%s=%q: want true or false", envDomainInlineRepo, v)}
				}
			}
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return RunServe(ctx, f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Listen, "listen", ":8080", "address to listen on")
	fl.IntVar(&opts.Workers, "workers", 4, "work items stepped at once")
	fl.IntVar(&opts.QueueSize, "queue-size", 1000, "work items (not deliveries: those for a waiting or running item merge into it) waiting before a new item's delivery gets 503")
	fl.IntVar(&opts.MaxSteps, "max-steps", 10, "steps per work item per delivery")
	fl.DurationVar(&opts.Grace, "grace", 25*time.Second, "how long SIGTERM waits for in-flight steps")
	fl.IntVar(&opts.RateReserve, "rate-reserve", 100, "defer a job once its installation's GitHub REST rate limit has fewer requests left than this (0: no reserve)")
	fl.StringVar(&opts.CacheDir, "cache-dir", "", "directory for repository trees, one private directory per installation (default: a temporary directory)")
	fl.DurationVar(&opts.ReplayWindow, "replay-window", time.Hour, "drop a delivery whose body was accepted within this window under another delivery id")
	fl.BoolVar(&opts.DomainInlineRepo, "domain-inline-repo", false, "send the repository's files inside each domain-service request (for a service in its own container; env "+envDomainInlineRepo+")")
	fl.DurationVar(&opts.RedeliverInterval, "redeliver-interval", defaultRedeliverInterval, "App mode: how often the App's failed deliveries are redelivered through GitHub's API, also at start and soon after a refusal (0: never)")
	fl.DurationVar(&opts.RedeliverWindow, "redeliver-window", defaultRedeliverWindow, "how far back the App's delivery log is read for failed deliveries (at most 72h)")
	fl.StringVar(&opts.TrustRepoConfig, "trust-repo-config", "", "comma-separated owner/name, owner/*, * or installation ids whose .cogworks/services.toml, .cogworks/twins/ and .cogworks/prompts/ are used (env "+repotrust.EnvTrustRepoConfig+"; default none)")
	return cmd
}

// RunServe serves webhooks until ctx is done.
func RunServe(ctx context.Context, f *factory.Factory, opts *ServeOptions) error {
	if f.Metrics == nil {
		f.Metrics = metrics.New(metrics.Options{ProcessCollectors: true})
	}
	if f.LLMProvider == nil && f.Env("COGWORKS_LLM_PROVIDER") == "demo" {
		// The offline rules of `cogworks demo` (they answer the demo issue
		// only), for trying serve against `cogworks demo --keep`.
		p, err := demo.Script()
		if err != nil {
			return err
		}
		f.LLMProvider = p
	}
	secret := strings.TrimSpace(f.Env(secrets.EnvWebhookSecret))
	if secret == "" {
		return &factory.UsageError{Err: fmt.Errorf("%s is required", secrets.EnvWebhookSecret)}
	}
	cacheDir := opts.CacheDir
	if cacheDir == "" {
		dir, err := os.MkdirTemp("", "cogworks-serve-")
		if err != nil {
			return fmt.Errorf("cache dir: %w", err)
		}
		defer os.RemoveAll(dir)
		cacheDir = dir
	}
	src, err := newClientSource(ctx, f)
	if err != nil {
		return err
	}
	dirs, err := installdir.New(cacheDir, f.Logger())
	if err != nil {
		return err
	}
	trust, err := repotrust.ParseRepoTrust(opts.TrustRepoConfig)
	if err != nil {
		return &factory.UsageError{Err: fmt.Errorf("--trust-repo-config: %w", err)}
	}
	kick := make(chan struct{}, 1)
	runner := &ServeRunner{Factory: f, Clients: src, Dirs: dirs, Trust: trust, InlineRepo: opts.DomainInlineRepo, MaxSteps: opts.MaxSteps, RateReserve: opts.RateReserve}
	srv, err := server.New(server.Options{
		Secret: []byte(secret), PreviousSecret: []byte(strings.TrimSpace(f.Env(secrets.EnvWebhookSecretPrevious))), Runner: runner, Ready: src.Ready, Installations: src,
		QueueSize: opts.QueueSize, Workers: opts.Workers, Metrics: f.Metrics, Logger: f.Logger(), ReplayWindow: opts.ReplayWindow,
		OnRefused: func() {
			select {
			case kick <- struct{}{}:
			default:
			}
		},
	})
	if err != nil {
		return &factory.UsageError{Err: err}
	}
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", opts.Listen, err)
	}
	httpSrv := srv.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(srv.Listener(ln)) }()
	f.Logger().Info("serving", "addr", ln.Addr().String())
	recoverCtx, stopRecovery := context.WithCancel(ctx)
	defer stopRecovery()
	recovered := StartRecovery(recoverCtx, hookDeliveries(src), srv, opts, kick, f.Logger())
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stopRecovery() // no redelivery while draining: it would be refused
	recovered()
	f.Logger().Info("draining", "grace", opts.Grace.String())
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.Grace)
	defer cancel()
	drainErr := srv.Shutdown(grace) // new deliveries get 503 while steps finish
	httpErr := httpSrv.Shutdown(grace)
	if errors.Is(drainErr, context.DeadlineExceeded) {
		f.Logger().Warn("grace period ended; in-flight steps were cancelled and released their locks")
		drainErr = nil
	}
	return errors.Join(drainErr, ignoreClosed(httpErr))
}

func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// ClientSource gives the GitHub client for a delivery's installation.
type ClientSource interface {
	ForInstallation(ctx context.Context, id int64) (factory.Client, error)
	// BotLogin is the login CogWorks acts as.
	BotLogin() string
	Ready(ctx context.Context) error
	InstallationChanged(action string, id int64)
}

// newClientSource builds the serve client source from the environment: App
// mode when COGWORKS_GITHUB_APP_ID is set, else one token client.
func newClientSource(ctx context.Context, f *factory.Factory) (ClientSource, error) {
	if strings.TrimSpace(f.Env(github.EnvAppID)) == "" {
		c, err := f.Client(ctx)
		if err != nil {
			if noGitHubCredentials(f) {
				// The CLI's message asks for an installation id too, which
				// serve takes from each delivery instead.
				return nil, &factory.UsageError{Err: fmt.Errorf("no GitHub credentials: set %s and %s (the App: each delivery names its installation), or %s",
					github.EnvAppID, github.EnvAppPrivateKey, github.EnvToken)}
			}
			return nil, err
		}
		return &TokenSource{Client: c, bot: f.BotLogin}, nil
	}
	opts, err := github.AppOptionsFromEnv(f.Env)
	if err != nil {
		return nil, &factory.UsageError{Err: err}
	}
	opts.Logger = f.Logger()
	if f.Metrics != nil {
		opts.Transport = f.Metrics.Transport(nil)
	}
	return newAppSource(opts, f.BotLogin)
}

// noGitHubCredentials reports whether the environment holds no GitHub
// credential at all.
func noGitHubCredentials(f *factory.Factory) bool {
	for _, k := range []string{github.EnvToken, github.EnvActionsToken, github.EnvAppID, github.EnvAppPrivateKey, github.EnvInstallationID} {
		if strings.TrimSpace(f.Env(k)) != "" {
			return false
		}
	}
	return true
}

// newAppSource returns the App-mode client source; bot is the App's bot
// login ("" reads it from GET /app on first readiness check: <slug>[bot]).
func newAppSource(opts github.Options, bot string) (ClientSource, error) {
	apps, err := github.NewAppClients(opts)
	if err != nil {
		return nil, &factory.UsageError{Err: err}
	}
	return &appSource{apps: apps, bot: bot}, nil
}

type appSource struct {
	apps *github.AppClients
	mu   sync.Mutex
	bot  string
}

func (a *appSource) ForInstallation(ctx context.Context, id int64) (factory.Client, error) {
	if id <= 0 {
		return nil, errors.New("the delivery names no App installation")
	}
	if a.BotLogin() == "" {
		if err := a.Ready(ctx); err != nil {
			return nil, err
		}
	}
	return a.apps.Installation(ctx, id)
}

func (a *appSource) BotLogin() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bot
}

func (a *appSource) Ready(ctx context.Context) error {
	slug, err := a.apps.CheckApp(ctx)
	if err != nil {
		return err
	}
	a.mu.Lock()
	if a.bot == "" && slug != "" {
		a.bot = slug + "[bot]"
	}
	a.mu.Unlock()
	return nil
}

func (a *appSource) InstallationChanged(action string, id int64) {
	switch action {
	case "deleted", "suspend", "new_permissions_accepted":
		a.apps.Forget(id) // a new token (or none) is needed
	}
}

// TokenSource is the client source of a single token: one client for
// every installation.
type TokenSource struct {
	Client factory.Client
	bot    string
}

func (t *TokenSource) ForInstallation(context.Context, int64) (factory.Client, error) {
	return t.Client, nil
}
func (t *TokenSource) BotLogin() string                  { return t.bot }
func (t *TokenSource) InstallationChanged(string, int64) {}
func (t *TokenSource) Ready(ctx context.Context) error {
	rl, ok := t.Client.(interface {
		GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
	})
	if !ok {
		return nil
	}
	// Any answer but a transport failure or 401 proves GitHub is reachable
	// with these credentials; a 404 for a made-up repository is fine.
	_, err := rl.GetRepo(ctx, github.Repo{Owner: "cogworks-readiness", Name: "probe"})
	if err == nil || errors.Is(err, github.ErrNotFound) {
		return nil
	}
	return err
}

// ServeRunner steps a work item for `cogworks serve`: the installation's
// client, the repository's config and files at its default branch head,
// then engine.Run.
type ServeRunner struct {
	Factory *factory.Factory
	Clients ClientSource
	// Dirs gives each installation its own cache directory, checked
	// before every job, so one installation's trees are out of another's
	// reach.
	Dirs *installdir.Dirs
	// Trust lists the repositories whose executable configuration is
	// used; every other repository's is ignored (and said so).
	Trust repotrust.RepoTrust
	// InlineRepo: domain-service requests carry the repository's files
	// (see withDomainRepoInline).
	InlineRepo bool
	MaxSteps   int
	// RateReserve: a job whose installation has fewer REST requests left
	// is deferred, not run (0 disables). See rateReserve.
	RateReserve int

	mu     sync.Mutex
	caches map[int64]*workspace.Cache
}

// cache returns the workspace cache of an installation, in its verified
// directory.
func (r *ServeRunner) cache(installation int64) (*workspace.Cache, error) {
	if r.Dirs == nil {
		return nil, errors.New("serve runner: no installation cache directories")
	}
	dir, err := r.Dirs.Path(installation)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.caches == nil {
		r.caches = map[int64]*workspace.Cache{}
	}
	c := r.caches[installation]
	if c == nil || c.Root != dir {
		c = &workspace.Cache{Root: dir}
		r.caches[installation] = c
	}
	return c, nil
}

// Run implements server.Runner.
func (r *ServeRunner) Run(ctx context.Context, job server.Job) ([]engine.Result, error) {
	gh, err := r.Clients.ForInstallation(ctx, job.Installation)
	if err != nil {
		return nil, fmt.Errorf("%s#%d: %w", job.Repo, job.Issue, err)
	}
	if why := factory.NewRateReserve(gh, r.RateReserve).Short(ctx); why != "" {
		// The installation's window is shared with its people and other
		// apps; waiting out a limit would hold a worker for up to an hour.
		// The next event or a process-all cron run takes the item.
		return []engine.Result{{Issue: job.Issue, Outcome: factory.OutcomeDeferred, Reason: why}}, nil
	}
	wgh, ok := gh.(workspace.GitHub)
	if !ok {
		return nil, fmt.Errorf("GitHub client %T cannot read repository trees", gh)
	}
	cache, err := r.cache(job.Installation)
	if err != nil {
		return nil, err
	}
	co, err := cache.Head(ctx, wgh, job.Repo)
	if err != nil {
		return nil, err
	}
	if r.InlineRepo {
		ctx = factory.WithDomainRepoInline(ctx)
	}
	ctx = factory.WithDomainTenant(ctx, factory.InstallationTenant(job.Installation, job.Repo))
	if !r.Trust.Trusts(job.Installation, job.Repo) {
		ctx = repotrust.WithRepoConfigIgnored(ctx, fmt.Sprintf("serve uses a repository's twins, services and prompt overrides only when --trust-repo-config lists %s or installation %d", job.Repo, job.Installation))
	}
	d, err := r.Factory.EngineDepsWith(ctx, gh, job.Repo, co.Dir, co.Config, false)
	if err != nil {
		return nil, err
	}
	if bot := r.Clients.BotLogin(); bot != "" {
		d.BotLogin = bot // the App's "<slug>[bot]"; with a token, engineDepsWith asked GitHub
	}
	results, err := reviseJob(ctx, d, job)
	if err != nil || job.RevisionOnly {
		return results, err
	}
	ref := engine.Ref{Repo: job.Repo, Issue: job.Issue, CheckMerges: job.CheckMerges, CommentEvent: commandEvent(job.Comments)}
	more, err := engine.Run(ctx, d, ref, r.MaxSteps)
	results = append(results, more...)
	if job.Restack && err == nil && d.Restacker != nil {
		// A lower PR of the stack was merged: retarget and update the
		// item's other PRs under its lock.
		res, rerr := engine.Restack(ctx, d, engine.Ref{Repo: job.Repo, Issue: job.Issue})
		results, err = append(results, res), rerr
	}
	return results, err
}

// commandEvent reports whether a job's comments include a new comment by
// a person that holds a /cogworks command.
func commandEvent(comments []server.CommentEvent) bool {
	for _, c := range comments {
		if c.Action == "created" && c.UserType != "Bot" && len(commands.Parse(c.Body)) > 0 {
			return true
		}
	}
	return false
}

// reviseJob runs the revisions a job's review and CI deliveries asked for.
func reviseJob(ctx context.Context, d engine.Deps, job server.Job) ([]engine.Result, error) {
	var results []engine.Result
	for _, pr := range job.Revise {
		res, err := engine.Revise(ctx, d, engine.RevisionRef{Repo: job.Repo, Issue: job.Issue, PR: pr})
		results = append(results, res)
		if err != nil {
			return results, err
		}
	}
	for _, c := range job.CI {
		res, err := engine.ReviseCI(ctx, d, engine.RevisionRef{Repo: job.Repo, Issue: job.Issue, PR: c.PR}, c.Head)
		results = append(results, res)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}
