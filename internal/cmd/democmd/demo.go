package democmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// DemoOptions are the flags of `cogworks demo`.
type DemoOptions struct {
	Keep   bool
	Listen string
	// MaxRounds bounds the number of engine.Run rounds (each up to 10 steps).
	MaxRounds int
	// Transport replaces the GitHub client's base transport and Clock the
	// clock of both the simulator and the steps (tests inject crashes and
	// move time).
	Transport http.RoundTripper
	Clock     func() time.Time
	// Retry overrides the GitHub client's retry policy.
	Retry github.RetryPolicy
	// EditFiles, when set, changes the sample repository's files before
	// the demo starts (tests change the config).
	EditFiles func(files map[string]string)
	// WrapDomain, when set, wraps the Go domain service's HTTP handler
	// (tests replay its answers to identical requests across runs).
	WrapDomain func(http.Handler) http.Handler
	// OneSWI plans one sub-work-item (the codec) instead of two: the
	// smallest whole pipeline, whose requests the budget tests count.
	OneSWI bool
	// Review adds the review-and-revise cycle after the pipeline completes
	// (demo_review.go); `cogworks demo` sets it.
	Review bool
	// SimOptions configure the GitHub simulator further (tests keep its
	// answers with githubsim.WithResponseLog to check them against
	// GitHub's OpenAPI description).
	SimOptions []githubsim.Option
	// Sample is the sample repository: "go" (the default) or one of
	// demo.SampleNames, served by the built-in command domain service.
	Sample string
}

// DemoReport is what a demo run produced, for the summary and for tests.
type DemoReport struct {
	Repo      github.Repo
	Issue     int
	URL       string
	Workspace string
	Steps     []engine.Result
	Final     engine.StepOutcome
	Snapshot  pipeline.Snapshot
	Pulls     []githubsim.PullRequest
	SubIssues []int
	Comments  int
	Sim       *githubsim.Server
	Socket    string

	Factory  *factory.Factory
	provider *demo.RuleProvider
}

// Resume continues the demo work item as a new process would after a
// crash: a fresh GitHub client and factory, the given clock, the same
// simulator, workspace and domain service.
func (r *DemoReport) Resume(ctx context.Context, clock func() time.Time) error {
	r.Factory = newDemoFactory(r.Factory.IO, r.URL, &DemoOptions{Clock: clock}, r.provider)
	if err := r.drive(ctx, 30); err != nil {
		return err
	}
	return r.summarise(ctx)
}

// StepDeps returns step-function dependencies wired like the demo's own,
// so a caller can step the demo work item again.
func (r *DemoReport) StepDeps(ctx context.Context) (engine.Deps, error) {
	return r.Factory.EngineDeps(ctx, r.Repo, r.Workspace, false)
}

// NewCmdDemo builds `cogworks demo`.
func NewCmdDemo(f *factory.Factory) *cobra.Command {
	opts := &DemoOptions{MaxRounds: 60, Review: true}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole pipeline offline: simulated GitHub, scripted LLM, the real Go domain service",
		Long: `Start an in-process GitHub simulator seeded with a sample Go repository, the
reference Go domain service on a temporary unix socket and a scripted LLM; file
an issue, label it cogworks:run, approve the gates as a maintainer, and step the
pipeline until it completes. Prints each step, then the artifacts and the cost
table. With --keep the simulator stays up so you can browse it with curl.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			report, cleanup, err := RunDemo(cmd.Context(), f, opts)
			defer cleanup()
			if err != nil {
				return err
			}
			if opts.Keep {
				fmt.Fprintf(f.IO.Out, "\nSimulator still running at %s/api/v3/ (try: curl %s/api/v3/repos/%s/issues/%d/comments). Ctrl-C to stop.\n",
					report.URL, report.URL, report.Repo, report.Issue)
				<-cmd.Context().Done()
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "leave the simulator running and print its URL")
	cmd.Flags().StringVar(&opts.Listen, "listen", "127.0.0.1:0", "simulator listen address (with --keep)")
	cmd.Flags().StringVar(&opts.Sample, "sample", "go", "sample repository: go, or "+strings.Join(demo.SampleNames(), ", ")+" (the real toolchain through the built-in command domain service)")
	return cmd
}

// demoToken is the simulated installation token; demoBot its login.
const (
	DemoToken = "ghs_cogworksdemo0000000000000000000000"
	demoBot   = "cogworks[bot]"
	DemoHuman = "alice"
)

// RunDemo runs the demo pipeline and prints its progress to f.IO.Out. The
// returned cleanup stops the simulator and the domain service and removes
// temporary files; call it when done (after --keep's wait).
func RunDemo(ctx context.Context, f *factory.Factory, opts *DemoOptions) (*DemoReport, func(), error) {
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}
	out := f.IO.Out
	setup, err := demo.NewSetup(opts.Sample, opts.OneSWI)
	if err != nil {
		return nil, cleanup, &factory.UsageError{Err: err}
	}
	repo := github.Repo{Owner: setup.Owner, Name: setup.Name}
	report := &DemoReport{Repo: repo}
	files := setup.Files
	if opts.EditFiles != nil {
		opts.EditFiles(files)
	}
	ws, err := os.MkdirTemp("", "cogworks-demo-")
	if err != nil {
		return nil, cleanup, fmt.Errorf("demo workspace: %w", err)
	}
	cleanups = append(cleanups, func() { os.RemoveAll(ws) })
	report.Workspace = ws

	var simOpts []githubsim.Option
	if opts.Clock != nil {
		simOpts = append(simOpts, githubsim.WithClock(opts.Clock))
	}
	sim := githubsim.New(append(simOpts, opts.SimOptions...)...)
	url, err := sim.Listen(opts.Listen)
	if err != nil {
		return nil, cleanup, fmt.Errorf("start GitHub simulator: %w", err)
	}
	cleanups = append(cleanups, sim.Close)
	report.URL, report.Sim = url, sim
	sim.AddToken(DemoToken, demoBot)
	sim.CreateRepo(repo.Owner, repo.Name, "main")
	sim.SeedFiles(repo.String(), "main", files)
	sim.AddCollaborator(repo.String(), DemoHuman, "maintain")
	// The bot writes, as an installed App may: `cogworks doctor` against the
	// kept simulator then finds the access it checks for.
	sim.AddCollaborator(repo.String(), demoBot, "write")
	fmt.Fprintf(out, "▶ GitHub simulator at %s, repository %s seeded with %d files\n", url, repo, len(files))

	sockDir, err := os.MkdirTemp("", "cwdemo")
	if err != nil {
		return nil, cleanup, fmt.Errorf("domain service socket dir: %w", err)
	}
	cleanups = append(cleanups, func() { os.RemoveAll(sockDir) })
	if setup.Sample != nil {
		// A non-Go sample: its [[domains]] table served in-process by the
		// built-in command domain service, with the real toolchain.
		sock := filepath.Join(sockDir, "cmd.sock")
		stop, err := setup.Sample.Serve(ctx, sock, f.Env)
		if err != nil {
			return nil, cleanup, err
		}
		cleanups = append(cleanups, func() { _ = stop() })
		report.Socket = sock
		files[".cogworks/services.toml"] = fmt.Sprintf("[[services]]\nname = %q\ntransport = \"unix\"\nendpoint = %q\n", setup.Sample.Name, sock)
		fmt.Fprintf(out, "▶ built-in command domain service ([[domains]] preset %q) on unix socket %s\n", setup.Sample.Domain.Preset, sock)
	} else {
		sock := filepath.Join(sockDir, "go.sock")
		ln, err := goservice.ListenUnix(sock)
		if err != nil {
			return nil, cleanup, fmt.Errorf("start Go domain service: %w", err)
		}
		handler := goservice.NewHandler(goservice.Options{})
		if opts.WrapDomain != nil {
			handler = opts.WrapDomain(handler)
		}
		svc := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
		served := make(chan struct{})
		go func() { defer close(served); _ = svc.Serve(ln) }()
		cleanups = append(cleanups, func() {
			shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = svc.Shutdown(shutdownCtx) // in-flight requests get up to 10 s, as goservice.Serve allows
			<-served
		})
		report.Socket = sock
		files[".cogworks/services.toml"] = fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n", sock)
		fmt.Fprintf(out, "▶ Go domain service on unix socket %s\n", sock)
	}
	if err := demo.WriteWorkspace(ws, files); err != nil {
		return nil, cleanup, err
	}

	script := setup.Script
	streams := factory.IOStreams{In: f.IO.In, Out: out, ErrOut: io.Discard}
	if f.Getenv != nil && f.Getenv("COGWORKS_DEMO_LOG") != "" {
		streams.ErrOut = f.IO.ErrOut
	}
	df := newDemoFactory(streams, url, opts, script)
	report.Factory, report.provider = df, script

	// What `cogworks init` did once for this repository: the labels, with
	// their colours and descriptions. Set-up, not part of the pipeline.
	for _, name := range initcmd.CogWorksLabels() {
		if color, desc, ok := pipeline.LabelSpec(name); ok {
			sim.SeedLabel(repo.String(), name, color, desc)
		}
	}
	fmt.Fprintf(out, "▶ cogworks init created the %d CogWorks labels\n", len(initcmd.CogWorksLabels()))

	n := sim.SeedIssue(repo.String(), DemoHuman, setup.IssueTitle, setup.IssueBody)
	sim.LabelIssue(repo.String(), n, DemoHuman, pipeline.LabelRun)
	report.Issue = n
	fmt.Fprintf(out, "▶ %s filed #%d %q and labelled it %s\n\n", DemoHuman, n, setup.IssueTitle, pipeline.LabelRun)

	if err := report.drive(ctx, opts.MaxRounds); err != nil {
		// Show what was produced and spent up to the halt.
		if serr := report.summarise(ctx); serr != nil {
			fmt.Fprintf(out, "(no summary: %v)\n", serr)
		}
		return report, cleanup, err
	}
	if opts.Review {
		if err := demoReview(ctx, df, sim, ws, report); err != nil {
			if serr := report.summarise(ctx); serr != nil {
				fmt.Fprintf(out, "(no summary: %v)\n", serr)
			}
			return report, cleanup, err
		}
	}
	if err := report.summarise(ctx); err != nil {
		return report, cleanup, err
	}
	fmt.Fprint(out, setup.Epilogue())
	return report, cleanup, nil
}

// newDemoFactory wires the production executors to the simulator at url
// and the demo's offline LLM, with opts' GitHub transport, retry policy
// and clock (zero values: the defaults, and time.Now).
func newDemoFactory(streams factory.IOStreams, url string, opts *DemoOptions, provider *demo.RuleProvider) *factory.Factory {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	df := &factory.Factory{IO: streams, Getenv: func(string) string { return "" }, Clock: clock, BotLogin: demoBot, StateKey: statesig.DemoKey(), LLMProvider: provider}
	df.GitHub = func(ctx context.Context) (factory.Client, error) {
		return github.New(ctx, github.Options{BaseURL: url + "/api/v3/", Token: DemoToken, Transport: opts.Transport, Retry: opts.Retry})
	}
	factory.Wire(df)
	return df
}

// drive steps the report's work item through its factory against its
// simulator and workspace, approving gates as a maintainer would, for at
// most rounds runs of engine.Run (0: 60).
func (r *DemoReport) drive(ctx context.Context, rounds int) error {
	df, sim, repo, ws, n := r.Factory, r.Sim, r.Repo, r.Workspace, r.Issue
	out := df.IO.Out
	if rounds <= 0 {
		rounds = 60
	}
	for round := 0; round < rounds; round++ {
		deps, err := df.EngineDeps(ctx, repo, ws, false)
		if err != nil {
			return err
		}
		// Each round is one run of the Action on an event; the event's
		// payload carries the issue as GitHub sent it.
		is, ok := sim.Issue(repo.String(), n)
		if !ok {
			return fmt.Errorf("demo issue #%d vanished", n)
		}
		payload := github.Issue{ID: is.ID, Number: is.Number, Title: is.Title, Body: is.Body, State: is.State, User: is.Author, Labels: is.Labels}
		results, err := engine.Run(ctx, deps, engine.Ref{Repo: repo, Issue: n, CheckMerges: true, Known: &payload}, 10)
		for _, res := range results {
			r.Steps = append(r.Steps, res)
			fmt.Fprintf(out, "  step %-3d %-20s %-10s → %-9s %3d requests %5d ms  %s\n", len(r.Steps), res.Stage, res.Action, res.Outcome, res.GitHubRequests, res.DurationMS, factory.OneLine(res.Reason, 90))
		}
		if err != nil {
			var fe *engine.FailedError
			if errors.As(err, &fe) {
				r.Final = engine.OutcomeFailed
			}
			return fmt.Errorf("demo pipeline stopped: %w", err)
		}
		last := results[len(results)-1]
		r.Final = last.Outcome
		switch last.Outcome {
		case engine.OutcomeComplete:
			return nil
		case engine.OutcomeWaiting:
			sim.LabelIssue(repo.String(), n, DemoHuman, pipeline.LabelApprove)
			fmt.Fprintf(out, "  ✔ %s (maintainer) reviews the gate and applies %s\n", DemoHuman, pipeline.LabelApprove)
		case engine.OutcomeFailed:
			return fmt.Errorf("demo pipeline failed; see the failure report on #%d", n)
		}
	}
	return fmt.Errorf("demo did not complete within %d rounds", rounds)
}

// summarise fills the report with what the run produced (the snapshot,
// PRs, sub-issues, comments) and prints it, with the cost table, to the
// factory's output.
func (r *DemoReport) summarise(ctx context.Context) error {
	df, sim, ws := r.Factory, r.Sim, r.Workspace
	out := df.IO.Out
	snap, err := factory.ReadSnapshot(ctx, df, r.Repo, r.Issue)
	if err != nil {
		return err
	}
	r.Snapshot = snap
	r.Pulls = sim.Pulls(r.Repo.String())
	r.Comments = len(sim.Comments(r.Repo.String(), r.Issue))
	for _, swi := range snap.SubWorkItems {
		r.SubIssues = append(r.SubIssues, swi.Issue)
	}
	sort.Ints(r.SubIssues)
	fmt.Fprintf(out, "\n▶ #%d reached %s in %d steps\n", r.Issue, snap.Stage, len(r.Steps))
	fmt.Fprintln(out, "\nPull requests (CogWorks never merges; humans merge bottom-up):")
	for _, pr := range r.Pulls {
		fmt.Fprintf(out, "  #%-3d %-28s → %-22s %s  %s\n", pr.Number, pr.Head, pr.Base, pr.State, pr.Title)
	}
	fmt.Fprintln(out, "\nSub-work-items:")
	for _, swi := range snap.SubWorkItems {
		fmt.Fprintf(out, "  %d. %-10s issue #%-3d %-10s PR #%d  branch %s\n", swi.Order, swi.ID, swi.Issue, swi.Status, swi.PR, swi.Branch)
	}
	var requests int64
	for _, s := range r.Steps {
		requests += s.GitHubRequests
	}
	fmt.Fprintf(out, "\nComments on #%d: %d · GitHub requests: %d\n\nCost:\n", r.Issue, r.Comments, requests)
	cfg, err := df.LoadConfig(ws)
	if err != nil {
		return err
	}
	return factory.WriteCostReport(out, snap, df.Budget(cfg))
}
