package democmd

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/pipeline"
)

// DemoHumanToken is the maintainer's token on the demo's simulator.
const DemoHumanToken = "ghp_demomaintainer000000000000000000000"

// demoReview is the demo's review-and-revise cycle (issue 28): the
// maintainer requests changes on the codec's PR with two inline comments
// (internal/demo's review.go), and one revision step answers them with
// one follow-up commit and one reply per thread.
func demoReview(ctx context.Context, df *factory.Factory, sim *githubsim.Server, ws string, report *DemoReport) error {
	out := df.IO.Out
	repo, n := report.Repo, report.Issue
	head := fmt.Sprintf("cogworks/%d/swi-1", n)
	pr := 0
	for _, p := range sim.Pulls(repo.String()) {
		if p.Head == head {
			pr = p.Number
		}
	}
	if pr == 0 {
		return fmt.Errorf("demo review: no pull request from %s", head)
	}
	comments, err := demo.ReviewComments(sim.BranchFiles(repo.String(), head)[demo.ReviewPath])
	if err != nil {
		return err
	}
	sim.AddToken(DemoHumanToken, DemoHuman)
	c, err := gh.NewClient(nil).WithAuthToken(DemoHumanToken).WithEnterpriseURLs(report.URL+"/api/v3/", report.URL+"/api/uploads/")
	if err != nil {
		return fmt.Errorf("demo review: %w", err)
	}
	req := &gh.PullRequestReviewRequest{Event: gh.String("REQUEST_CHANGES"), Body: gh.String(demo.ReviewBody)}
	for _, rc := range comments {
		req.Comments = append(req.Comments, &gh.DraftReviewComment{Path: gh.String(demo.ReviewPath), Line: gh.Int(rc.Line), Body: gh.String(rc.Body)})
	}
	if _, _, err := c.PullRequests.CreateReview(ctx, repo.Owner, repo.Name, pr, req); err != nil {
		return fmt.Errorf("demo review of #%d: %w", pr, err)
	}
	fmt.Fprintf(out, "\n  ✎ %s (maintainer) requests changes on #%d with %d inline comments on %s\n", DemoHuman, pr, len(comments), demo.ReviewPath)
	deps, err := df.EngineDeps(ctx, repo, ws, false)
	if err != nil {
		return err
	}
	before, err := factory.ReadSnapshot(ctx, df, repo, n)
	if err != nil {
		return err
	}
	res, err := engine.Revise(ctx, deps, engine.RevisionRef{Repo: repo, Issue: n, PR: pr})
	report.Steps = append(report.Steps, res)
	fmt.Fprintf(out, "  step %-3d %-20s %-10s → %-9s %3d requests %5d ms  %s\n", len(report.Steps), res.Stage, res.Action, res.Outcome, res.GitHubRequests, res.DurationMS, factory.OneLine(res.Reason, 90))
	if err != nil {
		return fmt.Errorf("demo revision of #%d: %w", pr, err)
	}
	if res.Outcome != engine.OutcomeAdvanced {
		return fmt.Errorf("demo revision of #%d: %s: %s", pr, res.Outcome, res.Reason)
	}
	after, err := factory.ReadSnapshot(ctx, df, repo, n)
	if err != nil {
		return err
	}
	calls, in, outTok := ledgerTotal(after.Ledger)
	c0, i0, o0 := ledgerTotal(before.Ledger)
	fmt.Fprintf(out, "  the revision: %d GitHub requests, %d LLM calls, %d input + %d output tokens\n", res.GitHubRequests, calls-c0, in-i0, outTok-o0)
	return nil
}

// ledgerTotal sums a ledger's stages.
func ledgerTotal(l pipeline.Ledger) (calls, in, out int) {
	for _, u := range l.PerStage {
		calls, in, out = calls+u.Calls, in+u.InputTokens, out+u.OutputTokens
	}
	return calls, in, out
}
