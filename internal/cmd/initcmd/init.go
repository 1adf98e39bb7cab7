package initcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// InitOptions are the flags of `cogworks init`.
type InitOptions struct {
	Repo      string
	Workspace string
	DryRun    bool
	Force     bool
	NoLabels  bool
	// LabelsOnly creates the labels and writes no file.
	LabelsOnly bool
}

// Validate checks the flags.
func (o *InitOptions) Validate() error {
	if o.NoLabels && o.LabelsOnly {
		return fmt.Errorf("--no-labels and --labels-only exclude each other")
	}
	if o.NoLabels {
		return nil
	}
	if _, err := github.ParseRepo(o.Repo); err != nil {
		return fmt.Errorf("--repo (needed to create the labels; or --no-labels): %w", err)
	}
	return nil
}

// NewCmdInit builds `cogworks init`. runF replaces the run function in
// tests.
func NewCmdInit(f *factory.Factory, runF func(context.Context, *InitOptions) error) *cobra.Command {
	opts := &InitOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Set a repository up for CogWorks: config, an example scenario, the workflow and the labels",
		Long: `Write into the repository checkout:
  ` + config.Path + `   every setting with its default, commented
  ` + initfiles.ScenarioPath + `   an example scenario to replace with your own
  ` + initfiles.WorkflowPath + `   the GitHub Actions workflow (uses: cogworks/cogworks@v1)
and create the cogworks:* labels in the GitHub repository, with their colours
and descriptions. Existing files are left alone (and init fails, naming them)
unless --force; labels that exist are kept. --dry-run prints what would be
done and changes nothing.` + factory.HelpEnv(factory.EnvRepo, factory.EnvWorkspace, factory.EnvGitHub+" (not needed with --dry-run or --no-labels)", factory.EnvLog) +
			factory.HelpExit("0  done (or, with --dry-run, shown)",
				"1  GitHub refused or failed to create a label",
				"2  bad usage, a missing workspace, files that exist without --force, or missing credentials"),
		Example: `  cogworks init --repo acme/widgets --workspace ~/src/widgets --dry-run
  cogworks init --repo acme/widgets            # in the checkout
  cogworks init --no-labels --force            # rewrite the files only
  cogworks init --repo acme/widgets --labels-only`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			factory.DefaultTarget(f, &opts.Repo, &opts.Workspace)
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runInit(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "repository owner/name whose labels to create (default $GITHUB_REPOSITORY, else the origin remote)")
	fl.StringVar(&opts.Workspace, "workspace", "", "repository checkout to write the files into (default $GITHUB_WORKSPACE or .)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print what would be written and created, change nothing")
	fl.BoolVar(&opts.Force, "force", false, "overwrite files that exist")
	fl.BoolVar(&opts.NoLabels, "no-labels", false, "write the files only; create no labels")
	fl.BoolVar(&opts.LabelsOnly, "labels-only", false, "create the missing labels only; write no file")
	return cmd
}

// CogWorksLabels are the repository labels CogWorks uses with a fixed
// name: init creates them and doctor checks them (the per-issue
// depends-on and order labels are created on first use).
func CogWorksLabels() []string { return pipeline.RepositoryLabels() }

func runInit(ctx context.Context, f *factory.Factory, opts *InitOptions) error {
	var gh factory.Client
	if !opts.NoLabels && !opts.DryRun {
		// The credentials come first: an init that fails on them must
		// change nothing, or its re-run meets its own files and needs
		// --force to get to the labels.
		c, err := f.Client(ctx)
		if err != nil {
			var ue *factory.UsageError
			if errors.As(err, &ue) {
				return &factory.UsageError{Err: fmt.Errorf("init: %w; nothing written (--no-labels writes the files without credentials, --labels-only creates the labels later)", ue.Err)}
			}
			return fmt.Errorf("init: %w; nothing written", err)
		}
		gh = c
	}
	if !opts.LabelsOnly {
		if err := WriteFiles(f, opts); err != nil {
			return err
		}
	}
	if opts.NoLabels {
		return nil
	}
	return initLabels(ctx, f, gh, opts)
}

// WriteFiles writes (or, in a dry run, lists) the files.
func WriteFiles(f *factory.Factory, opts *InitOptions) error {
	if err := factory.CheckWorkspace(opts.Workspace); err != nil {
		return err
	}
	files, err := initfiles.Files()
	if err != nil {
		return err
	}
	tables, covered, err := DomainTables(opts.Workspace)
	if err != nil {
		return err
	}
	files[config.Path] = append(files[config.Path], tables...)
	ci, err := initfiles.DetectCIWorkflows(opts.Workspace)
	if err != nil {
		return err
	}
	if files[initfiles.WorkflowPath], err = initfiles.RenderWorkflow(files[initfiles.WorkflowPath], ci); err != nil {
		return err
	}
	paths := []string{config.Path, initfiles.ScenarioPath, initfiles.WorkflowPath}
	var existing []string
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(opts.Workspace, filepath.FromSlash(p))); err == nil {
			existing = append(existing, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("init %s: %w", p, err)
		}
	}
	if len(existing) > 0 && !opts.Force && !opts.DryRun {
		return &factory.UsageError{Err: fmt.Errorf("init: %s already exist(s) in %s; nothing written (use --force to overwrite)",
			strings.Join(existing, ", "), opts.Workspace)}
	}
	out := f.IO.Out
	verb := "wrote"
	if opts.DryRun {
		verb = "would write"
	}
	for _, p := range paths {
		note := ""
		if contains(existing, p) {
			note = " (overwriting)"
			if !opts.Force {
				note = " (exists: needs --force)"
			}
		}
		if !opts.DryRun {
			full := filepath.Join(opts.Workspace, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return fmt.Errorf("init %s: %w", p, err)
			}
			if err := os.WriteFile(full, files[p], 0o644); err != nil {
				return fmt.Errorf("init %s: %w", p, err)
			}
		}
		fmt.Fprintf(out, "%s %s%s\n", verb, p, note)
	}
	if tables != "" {
		fmt.Fprintf(out, "%s [[domains]] for %s in %s (the built-in command service; `cogworks doctor` checks its commands)\n",
			verb, strings.Join(domainNames(tables), ", "), config.Path)
	}
	fmt.Fprintln(out, ciWorkflowsNote(ci))
	if n := InitServicesNote(opts.Workspace, covered); n != "" {
		fmt.Fprintln(out, n)
	}
	return nil
}

// ciWorkflowsNote says which CI workflows the written workflow hears.
func ciWorkflowsNote(ci initfiles.CIWorkflows) string {
	var b strings.Builder
	if len(ci.Names) == 0 {
		b.WriteString("CI feedback: no CI workflow found in .github/workflows; " + initfiles.WorkflowPath + " has no workflow_run trigger (a comment shows how to add one)")
	} else {
		fmt.Fprintf(&b, "CI feedback: %s's workflow_run trigger lists your CI workflows %s", initfiles.WorkflowPath, strings.Join(ci.Names, ", "))
	}
	if len(ci.Unnamed) > 0 {
		fmt.Fprintf(&b, "; %s ha(s) no name: give each a `name:` and list it there", strings.Join(ci.Unnamed, ", "))
	}
	return b.String()
}

// domainNames lists the presets of the active tables in tables.
func domainNames(tables string) []string {
	var names []string
	for _, l := range strings.Split(tables, "\n") {
		if v, ok := strings.CutPrefix(l, "preset = "); ok {
			names = append(names, strings.Trim(v, `"`))
		}
	}
	if len(names) == 0 {
		names = []string{"none active (see the commented tables)"}
	}
	return names
}

// InitServicesNote tells a repository whose languages neither the
// built-in Go service nor the [[domains]] init wrote (covered) serve,
// and which registers no service, what to register; `doctor` checks a
// registered service's types.
func InitServicesNote(workspace string, covered []string) string {
	if _, err := os.Stat(domain.ServicesPath(workspace, "")); err == nil {
		return ""
	}
	return factory.LanguagesNote(factory.UncoveredLanguages(factory.DetectLanguages(workspace), append([]string{".go", "go.mod"}, covered...)))
}

// initLabels creates the missing CogWorks labels with gh (or, in a dry
// run, lists them).
func initLabels(ctx context.Context, f *factory.Factory, gh factory.Client, opts *InitOptions) error {
	out := f.IO.Out
	repo, _ := github.ParseRepo(opts.Repo)
	if opts.DryRun {
		for _, name := range CogWorksLabels() {
			fmt.Fprintf(out, "would create label %s in %s (if missing)\n", name, repo)
		}
		return nil
	}
	before, err := gh.ListRepoLabels(ctx, repo)
	if err != nil {
		return fmt.Errorf("list labels of %s: %w", repo, err)
	}
	had := map[string]bool{}
	for _, l := range before {
		had[strings.ToLower(l.Name)] = true
	}
	labels := idem.NewLabels(gh, repo, pipeline.LabelSpec)
	if err := labels.EnsureRepoLabels(ctx, CogWorksLabels()...); err != nil {
		return err
	}
	created := 0
	for _, name := range CogWorksLabels() {
		if !had[strings.ToLower(name)] {
			created++
		}
	}
	_, err = fmt.Fprintf(out, "labels: created %d, %d already present in %s\n", created, len(CogWorksLabels())-created, repo)
	return err
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
