package stages

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	"github.com/cogworks/cogworks/internal/testverdict"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

func TestAssertINT001_PRReferencesWorkItems(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, nil, nil, nil)
	res := reviewThenIntegrate(t, f)

	pr := onlyPull(t, f)
	assert.Equal(t, fmt.Sprintf("[#%d] Telemetry publisher", f.parent), pr.Title)
	assert.Equal(t, fmt.Sprintf("cogworks/%d/swi-1", f.parent), pr.Head)
	assert.Equal(t, fmt.Sprintf("cogworks/%d/interfaces", f.parent), pr.Base, "a SWI without dependencies stacks on the interface branch")
	assert.Contains(t, pr.Body, fmt.Sprintf("Implements #%d", f.swi), "sub-work-item issue")
	assert.Contains(t, pr.Body, fmt.Sprintf("| parent work item | #%d |", f.parent))
	assert.Contains(t, pr.Body, "| specification PR | #901 |")
	assert.Contains(t, pr.Body, "| interface PR | #902 |")
	assert.NotContains(t, pr.Body, "Closes #", "CogWorks never closes issues")

	rec := f.snap.SubWorkItems[0]
	assert.Equal(t, pr.Number, rec.PR)
	assert.Equal(t, string(pipeline.SWICompleted), rec.Status)
	assert.Empty(t, f.snap.CurrentSWI)
	assert.Contains(t, f.env.Sim.Labels(testenv.Repo.String(), f.swi), "cogworks:status:completed")
	assert.NotContains(t, f.env.Sim.Labels(testenv.Repo.String(), f.swi), "cogworks:status:in-progress")

	assert.Equal(t, pipeline.EventAllDone, res.Event, "the last SWI completes the work item")
	cost := f.comment(audit.Key(strconv.Itoa(f.parent), "cost"))
	assert.Contains(t, cost, "Cost report")
	assert.Contains(t, cost, "stage `review`")
}

func TestPRBodyGolden(t *testing.T) {
	t.Parallel()
	body := prBody(prBodyInput{
		WorkItem: 42, SWI: pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "can-encoder", DependsOn: []string{"can-frames"}}, Issue: 57, Order: 2,
			TestNotes: verdictNotes(testverdict.Verdict{
				Passing: []testverdict.Key{{Package: "example.com/telemetry", Name: "TestEncode"}},
				Skipped: []testverdict.Key{{Package: "example.com/telemetry", Name: "TestHardware"}},
				Flaky:   []testverdict.Excuse{{Key: testverdict.Key{Package: "example.com/telemetry", Name: "TestBusLoad"}}},
			})},
		Artifacts:      pipeline.Artifacts{SpecPR: 43, InterfacePR: 44},
		Files:          []domain.Artifact{{Path: "telemetry/can.go"}, {Path: "telemetry/can_test.go"}},
		SafetyCritical: true,
		Warnings:       []string{`domain service "pcb" (domain electrical) is unavailable: cross-domain validation for electrical was skipped`},
		Other:          []review.Finding{infoFinding()},
	})
	path := filepath.Join("testdata", "pr_body.golden")
	if os.Getenv("UPDATE") != "" {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), body)
}

func TestAssertINT002_NonBlockingFindingsInlineInOneCommentReview(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, []review.Finding{warningFinding()}, nil, []review.Finding{infoFinding(),
		{File: shipCodePath, Line: 3, Severity: review.SeverityInformational, Criterion: "docs", Explanation: "say what a frame is"}})
	reviewThenIntegrate(t, f)

	pr := onlyPull(t, f)
	require.Len(t, pr.Reviews, 1, "one review")
	rv := pr.Reviews[0]
	assert.Equal(t, "COMMENTED", rv.State)
	assert.Equal(t, testenv.Bot, rv.Author)
	require.Len(t, rv.Comments, 2, "every finding with a line is inline")
	assert.Equal(t, shipCodePath, rv.Comments[0].Path)
	assert.Equal(t, 9, rv.Comments[0].Line)
	assert.Contains(t, rv.Comments[0].Body, "parameter frame is unused")
	assert.Equal(t, 3, rv.Comments[1].Line)
	assert.Contains(t, pr.Body, "consider a package example", "a finding without a line goes in the PR body")

	// Re-running integration changes nothing: the PR and the review exist.
	f.snap.CurrentSWI = shipSWIID
	f.env.Sim.ResetRequests()
	_, err := f.run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	assert.Empty(t, writeRequests(f), "re-running integration must not write")
	assert.Len(t, onlyPull(t, f).Reviews, 1)
}

func TestAssertINT003_NeverMergesOrApproves(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, []review.Finding{warningFinding()}, nil, nil)
	reviewThenIntegrate(t, f)
	hasMergeOrApproval(t, f)

	// The adapter refuses the operations outright, before any request.
	pr := onlyPull(t, f)
	before := f.env.Sim.RequestCount()
	var denied *github.DeniedError
	require.True(t, errors.As(f.env.Client.MergePull(context.Background(), testenv.Repo, pr.Number), &denied))
	_, err := f.env.Client.CreateReview(context.Background(), testenv.Repo, pr.Number, github.NewReview{Event: github.ReviewApprove})
	require.True(t, errors.As(err, &denied))
	require.True(t, errors.As(f.env.Client.ClosePull(context.Background(), testenv.Repo, pr.Number), &denied))
	assert.Equal(t, before, f.env.Sim.RequestCount(), "denied operations send nothing")
	hasMergeOrApproval(t, f)
}

func TestAssertREVIEW006_SafetyCriticalPRNeedsHumanApproval(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, true)
	f.scriptReviews(t, nil, nil, nil)
	reviewThenIntegrate(t, f)

	pr := onlyPull(t, f)
	assert.Contains(t, pr.Body, "Safety-critical: requires human approval before merge")
	assert.Empty(t, pr.Reviews, "CogWorks does not approve")
	hasMergeOrApproval(t, f)
	// The review → integration gate is human-gated whatever the config says.
	policy := pipeline.GatePolicy{Modes: map[string]pipeline.GateMode{"integration": pipeline.AutoProceed}}
	assert.Equal(t, pipeline.HumanGated, policy.Mode(pipeline.StageReview, true))
	// And the security pass was told the work item is safety-critical.
	var sawSafety bool
	for _, r := range f.script.Requests() {
		if r.Template == "review_security" {
			sawSafety = containsText(r, "safety-critical")
		}
	}
	assert.True(t, sawSafety, "the security prompt says the work item is safety-critical")
}

func TestAssertEXT002_DomainWarningInPR(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	warning := `domain service "pcb" (domain electrical) is unavailable: cross-domain validation for electrical was skipped`
	f.deps.Warnings = []string{warning}
	f.scriptReviews(t, nil, nil, nil)
	res := reviewThenIntegrate(t, f)

	assert.Contains(t, onlyPull(t, f).Body, warning, "the PR reports the skipped validation")
	assert.Contains(t, res.Warnings, warning, "the audit trail (status comment) reports it")
	assert.Contains(t, f.comment(audit.Key(strconv.Itoa(f.parent), "review", shipSWIID)), warning)
}

func TestIntegrationNextSWI(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.snap.SubWorkItems = append(f.snap.SubWorkItems,
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "telemetry-sink", DependsOn: []string{shipSWIID}}, Order: 2, Status: string(pipeline.SWIPending)})
	f.scriptReviews(t, nil, nil, nil)
	res := reviewThenIntegrate(t, f)

	assert.Equal(t, pipeline.EventNextSWI, res.Event)
	assert.Empty(t, f.comment(audit.Key(strconv.Itoa(f.parent), "cost")), "no final cost report before the last SWI")
}

// GitHub refuses an inline comment on a line outside the PR's diff (422);
// such findings go in the review's body with their file and line.
func TestFindingsOutsideTheDiffGoInTheReviewBody(t *testing.T) {
	t.Parallel()
	before := strings.Replace(shipCode, "PublishPeriodMS = 100", "PublishPeriodMS = 50", 1)
	f := newShipFixtureOn(t, false, map[string]string{shipCodePath: before})
	f.scriptReviews(t, nil, nil, []review.Finding{
		{File: shipCodePath, Line: 6, Severity: review.SeverityInformational, Criterion: "docs", Explanation: "say why 100 ms"},
		{File: shipCodePath, Line: 12, Severity: review.SeverityInformational, Criterion: "style", Explanation: "the closing brace is lonely"},
	})
	reviewThenIntegrate(t, f)

	pr := onlyPull(t, f)
	require.Len(t, pr.Reviews, 1, "one review")
	rv := pr.Reviews[0]
	require.Len(t, rv.Comments, 1, "only the changed line is inline")
	assert.Equal(t, 6, rv.Comments[0].Line)
	assert.Contains(t, rv.Body, "outside this PR's diff")
	assert.Contains(t, rv.Body, shipCodePath+":12")
	assert.Contains(t, rv.Body, "the closing brace is lonely")

	// Re-running integration finds the review by its marker.
	f.snap.CurrentSWI = shipSWIID
	f.env.Sim.ResetRequests()
	_, err := f.run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	assert.Empty(t, writeRequests(f), "re-running integration must not write")
}
