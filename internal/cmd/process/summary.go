package process

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// outcomeIgnored is the outcome reported for an event that concerns no
// work item (the trigger check said no).
const outcomeIgnored = "ignored"

// outcomeError is the outcome reported when the invocation failed without
// failing the pipeline (bad configuration, an outage): state is untouched.
const outcomeError = "error"

// runReport is what one `cogworks process` invocation did, as written to
// the GitHub Actions step summary and step outputs.
type runReport struct {
	Repo    github.Repo
	Issue   int
	Ignored string
	Results []engine.Result
	// Snapshot is the work item's state after the run, when it could be
	// read.
	Snapshot     *pipeline.Snapshot
	BudgetTokens int
	BudgetUSD    float64
	Err          error
}

// Stage is where the work item stands after the run.
func (r runReport) Stage() string {
	if r.Snapshot != nil && r.Snapshot.Stage != "" {
		return string(r.Snapshot.Stage)
	}
	if n := len(r.Results); n > 0 {
		return r.Results[n-1].Stage
	}
	return ""
}

// Outcome is the last step's outcome, "ignored", "failed" or "error".
func (r runReport) Outcome() string {
	var fe *engine.FailedError
	switch {
	case r.Ignored != "":
		return outcomeIgnored
	case errors.As(r.Err, &fe):
		return string(engine.OutcomeFailed)
	case r.Err != nil:
		return outcomeError
	case len(r.Results) > 0:
		return string(r.Results[len(r.Results)-1].Outcome)
	}
	return ""
}

// PullRequests lists the work item's pull requests (specification,
// interfaces, sub-work-items), ascending.
func (r runReport) PullRequests() []int {
	prs := []int{}
	if r.Snapshot == nil {
		return prs
	}
	a := r.Snapshot.Artifacts
	seen := map[int]bool{}
	add := func(n int) {
		if n > 0 && !seen[n] {
			seen[n] = true
			prs = append(prs, n)
		}
	}
	add(a.SpecPR)
	add(a.InterfacePR)
	for _, s := range r.Snapshot.SubWorkItems {
		add(s.PR)
	}
	sort.Ints(prs)
	return prs
}

// Outputs renders the step outputs in the $GITHUB_OUTPUT format
// (name=value lines). pull-requests is a JSON array, for fromJSON.
func (r runReport) Outputs() string {
	prs, _ := json.Marshal(r.PullRequests())
	issue := ""
	if r.Issue > 0 {
		issue = fmt.Sprint(r.Issue)
	}
	var b strings.Builder
	for _, kv := range [][2]string{
		{"stage", r.Stage()}, {"outcome", r.Outcome()}, {"pull-requests", string(prs)}, {"issue", issue},
	} {
		fmt.Fprintf(&b, "%s=%s\n", kv[0], factory.OneLine(kv[1], 200))
	}
	return b.String()
}

// Markdown renders the step summary: what happened, the step table, the
// pull requests and the cost table.
func (r runReport) Markdown() string {
	var b strings.Builder
	title := "CogWorks"
	if r.Issue > 0 {
		title = fmt.Sprintf("CogWorks · %s#%d", r.Repo, r.Issue)
	}
	fmt.Fprintf(&b, "### %s\n\n", title)
	if r.Ignored != "" {
		fmt.Fprintf(&b, "Event ignored: %s.\n\n", mdCell(r.Ignored))
		return b.String()
	}
	fmt.Fprintf(&b, "**Stage:** `%s` · **outcome:** `%s` · **steps:** %d\n\n", factory.OrNone(r.Stage()), r.Outcome(), len(r.Results))
	if r.Err != nil {
		fmt.Fprintf(&b, "> **Error:** %s\n\n", mdCell(r.Err.Error()))
	}
	if len(r.Results) > 0 {
		b.WriteString("| # | stage | action | outcome | GitHub requests | ms | reason |\n")
		b.WriteString("|---:|---|---|---|---:|---:|---|\n")
		for i, s := range r.Results {
			fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %d | %d | %s |\n", i+1, s.Stage, s.Action, s.Outcome,
				s.GitHubRequests, s.DurationMS, mdCell(factory.OneLine(s.Reason, 160)))
		}
		b.WriteString("\n")
	}
	if prs := r.PullRequests(); len(prs) > 0 {
		refs := make([]string, len(prs))
		for i, n := range prs {
			refs[i] = fmt.Sprintf("#%d", n)
		}
		fmt.Fprintf(&b, "**Pull requests:** %s (CogWorks never merges)\n\n", strings.Join(refs, ", "))
	}
	if r.Snapshot != nil {
		b.WriteString("**Cost**\n\n")
		b.WriteString(audit.CostTable(r.Snapshot.Ledger, r.Snapshot.SubWorkItems, r.BudgetTokens, r.BudgetUSD))
		b.WriteString("\n")
	}
	return b.String()
}

// mdCell keeps text on one line and out of table syntax.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// appendFile appends text to the file at path (the runner creates
// $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT; other paths are created).
func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
