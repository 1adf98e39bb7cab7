package integration_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/internal/testverdict"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/integration"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestAssertINT001_PRReferencesWorkItems(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, nil, nil, nil)
	res := stagetest.ReviewThenIntegrate(t, f)

	pr := stagetest.OnlyPull(t, f)
	assert.Equal(t, fmt.Sprintf("[#%d] Telemetry publisher", f.Parent), pr.Title)
	assert.Equal(t, fmt.Sprintf("cogworks/%d/swi-1", f.Parent), pr.Head)
	assert.Equal(t, fmt.Sprintf("cogworks/%d/interfaces", f.Parent), pr.Base, "a SWI without dependencies stacks on the interface branch")
	assert.Contains(t, pr.Body, fmt.Sprintf("Implements #%d", f.SWI), "sub-work-item issue")
	assert.Contains(t, pr.Body, fmt.Sprintf("| parent work item | #%d |", f.Parent))
	assert.Contains(t, pr.Body, "| specification PR | #901 |")
	assert.Contains(t, pr.Body, "| interface PR | #902 |")
	assert.NotContains(t, pr.Body, "Closes #", "CogWorks never closes issues")

	rec := f.Snap.SubWorkItems[0]
	assert.Equal(t, pr.Number, rec.PR)
	assert.Equal(t, pipeline.SWICompleted, rec.Status)
	assert.Equal(t, stagetest.ShipSWIID, f.Snap.CurrentSWI, "the machine, not integration, leaves the SWI (on all_done)")
	assert.Contains(t, f.Env.Sim.Labels(testenv.Repo.String(), f.SWI), "cogworks:status:completed")
	assert.NotContains(t, f.Env.Sim.Labels(testenv.Repo.String(), f.SWI), "cogworks:status:in-progress")

	assert.Equal(t, pipeline.EventAllDone, res.Event, "the last SWI completes the work item")
	cost := f.Comment(audit.Key(strconv.Itoa(f.Parent), "cost"))
	assert.Contains(t, cost, "Cost report")
	assert.Contains(t, cost, "stage `review`")
}

func TestPRBodyGolden(t *testing.T) {
	t.Parallel()
	body := integration.PRBody(integration.PRBodyInput{
		WorkItem: 42, SWI: pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "can-encoder", DependsOn: []string{"can-frames"}}, Issue: 57, Order: 2,
			TestNotes: codegen.VerdictNotes(testverdict.Verdict{
				Passing: []testverdict.Key{{Package: "example.com/telemetry", Name: "TestEncode"}},
				Skipped: []testverdict.Key{{Package: "example.com/telemetry", Name: "TestHardware"}},
				Flaky:   []testverdict.Excuse{{Key: testverdict.Key{Package: "example.com/telemetry", Name: "TestBusLoad"}}},
			})},
		Artifacts:      pipeline.Artifacts{SpecPR: 43, InterfacePR: 44},
		Files:          []domain.Artifact{{Path: "telemetry/can.go"}, {Path: "telemetry/can_test.go"}},
		SafetyCritical: true,
		Warnings:       []string{`domain service "pcb" (domain electrical) is unavailable: cross-domain validation for electrical was skipped`},
		Other:          []review.Finding{stagetest.InfoFinding()},
	})
	testkit.Golden(t, filepath.Join("testdata", "pr_body.golden"), body)
}

func TestAssertINT002_NonBlockingFindingsInlineInOneCommentReview(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, []review.Finding{stagetest.WarningFinding()}, nil, []review.Finding{stagetest.InfoFinding(),
		{File: stagetest.ShipCodePath, Line: 3, Severity: domain.SeverityInformational, Criterion: "docs", Explanation: "say what a frame is"}})
	stagetest.ReviewThenIntegrate(t, f)

	pr := stagetest.OnlyPull(t, f)
	require.Len(t, pr.Reviews, 1, "one review")
	rv := pr.Reviews[0]
	assert.Equal(t, "COMMENTED", rv.State)
	assert.Equal(t, testenv.Bot, rv.Author)
	require.Len(t, rv.Comments, 2, "every finding with a line is inline")
	assert.Equal(t, stagetest.ShipCodePath, rv.Comments[0].Path)
	assert.Equal(t, 9, rv.Comments[0].Line)
	assert.Contains(t, rv.Comments[0].Body, "parameter frame is unused")
	assert.Equal(t, 3, rv.Comments[1].Line)
	assert.Contains(t, pr.Body, "consider a package example", "a finding without a line goes in the PR body")

	// Re-running integration changes nothing: the PR and the review exist.
	f.Snap.CurrentSWI = stagetest.ShipSWIID
	f.Env.Sim.ResetRequests()
	_, err := f.Run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	assert.Empty(t, stagetest.WriteRequests(f), "re-running integration must not write")
	assert.Len(t, stagetest.OnlyPull(t, f).Reviews, 1)
}

func TestAssertINT003_NeverMergesOrApproves(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, []review.Finding{stagetest.WarningFinding()}, nil, nil)
	stagetest.ReviewThenIntegrate(t, f)
	stagetest.HasMergeOrApproval(t, f)

	// The adapter refuses the operations outright, before any request.
	pr := stagetest.OnlyPull(t, f)
	before := f.Env.Sim.RequestCount()
	var denied *github.DeniedError
	require.True(t, errors.As(f.Env.Client.MergePull(context.Background(), testenv.Repo, pr.Number), &denied))
	_, err := f.Env.Client.CreateReview(context.Background(), testenv.Repo, pr.Number, github.NewReview{Event: github.ReviewApprove})
	require.True(t, errors.As(err, &denied))
	require.True(t, errors.As(f.Env.Client.ClosePull(context.Background(), testenv.Repo, pr.Number), &denied))
	assert.Equal(t, before, f.Env.Sim.RequestCount(), "denied operations send nothing")
	stagetest.HasMergeOrApproval(t, f)
}

func TestAssertREVIEW006_SafetyCriticalPRNeedsHumanApproval(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, true)
	f.ScriptReviews(t, nil, nil, nil)
	stagetest.ReviewThenIntegrate(t, f)

	pr := stagetest.OnlyPull(t, f)
	assert.Contains(t, pr.Body, "Safety-critical: requires human approval before merge")
	assert.Empty(t, pr.Reviews, "CogWorks does not approve")
	stagetest.HasMergeOrApproval(t, f)
	// The review → integration gate is human-gated whatever the config says.
	policy := pipeline.GatePolicy{Modes: map[string]pipeline.GateMode{"integration": pipeline.AutoProceed}}
	assert.Equal(t, pipeline.HumanGated, policy.Mode(pipeline.StageReview, true))
	// And the security pass was told the work item is safety-critical.
	var sawSafety bool
	for _, r := range f.Script.Requests() {
		if r.Template == "review_security" {
			sawSafety = stagetest.ContainsText(r, "safety-critical")
		}
	}
	assert.True(t, sawSafety, "the security prompt says the work item is safety-critical")
}

func TestAssertEXT002_DomainWarningInPR(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	warning := `domain service "pcb" (domain electrical) is unavailable: cross-domain validation for electrical was skipped`
	f.Deps.Warnings = []string{warning}
	f.ScriptReviews(t, nil, nil, nil)
	res := stagetest.ReviewThenIntegrate(t, f)

	assert.Contains(t, stagetest.OnlyPull(t, f).Body, warning, "the PR reports the skipped validation")
	assert.Contains(t, res.Warnings, warning, "the audit trail (status comment) reports it")
	assert.Contains(t, f.Comment(audit.Key(strconv.Itoa(f.Parent), "review", stagetest.ShipSWIID)), warning)
}

func TestIntegrationNextSWI(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.Snap.SubWorkItems = append(f.Snap.SubWorkItems,
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "telemetry-sink", DependsOn: []string{stagetest.ShipSWIID}}, Order: 2, Status: pipeline.SWIPending})
	f.ScriptReviews(t, nil, nil, nil)
	res := stagetest.ReviewThenIntegrate(t, f)

	assert.Equal(t, pipeline.EventNextSWI, res.Event)
	assert.Empty(t, f.Comment(audit.Key(strconv.Itoa(f.Parent), "cost")), "no final cost report before the last SWI")
}

// GitHub refuses an inline comment on a line outside the PR's diff (422);
// such findings go in the review's body with their file and line.
func TestFindingsOutsideTheDiffGoInTheReviewBody(t *testing.T) {
	t.Parallel()
	before := strings.Replace(stagetest.ShipCode, "PublishPeriodMS = 100", "PublishPeriodMS = 50", 1)
	f := stagetest.NewShipFixtureOn(t, false, map[string]string{stagetest.ShipCodePath: before})
	f.ScriptReviews(t, nil, nil, []review.Finding{
		{File: stagetest.ShipCodePath, Line: 6, Severity: domain.SeverityInformational, Criterion: "docs", Explanation: "say why 100 ms"},
		{File: stagetest.ShipCodePath, Line: 12, Severity: domain.SeverityInformational, Criterion: "style", Explanation: "the closing brace is lonely"},
	})
	stagetest.ReviewThenIntegrate(t, f)

	pr := stagetest.OnlyPull(t, f)
	require.Len(t, pr.Reviews, 1, "one review")
	rv := pr.Reviews[0]
	require.Len(t, rv.Comments, 1, "only the changed line is inline")
	assert.Equal(t, 6, rv.Comments[0].Line)
	assert.Contains(t, rv.Body, "outside this PR's diff")
	assert.Contains(t, rv.Body, stagetest.ShipCodePath+":12")
	assert.Contains(t, rv.Body, "the closing brace is lonely")

	// Re-running integration finds the review by its marker.
	f.Snap.CurrentSWI = stagetest.ShipSWIID
	f.Env.Sim.ResetRequests()
	_, err := f.Run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	assert.Empty(t, stagetest.WriteRequests(f), "re-running integration must not write")
}
