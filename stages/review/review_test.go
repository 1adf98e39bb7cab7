package review_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/xval"

	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func blockingFinding() review.Finding {
	return review.Finding{File: stagetest.ShipCodePath, Line: 10, Severity: domain.SeverityBlocking, Criterion: "error handling",
		Explanation: "Publish discards the frame and always reports success"}
}

func storedNonBlocking(t *testing.T, f *stagetest.ShipFixture) []review.Finding {
	t.Helper()
	return f.Snap.SubWorkItem(stagetest.ShipSWIID).Findings
}

func TestAssertREVIEW001_BlockingFindingNoPR(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, nil, nil, []review.Finding{blockingFinding(), stagetest.WarningFinding()})

	res, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventRemediate, res.Event, "remediation goes back to code generation")
	assert.Equal(t, 1, f.Snap.SubWorkItem(stagetest.ShipSWIID).RemediationCycles)
	assert.Empty(t, f.Env.Sim.Pulls(testenv.Repo.String()), "a blocking finding must not open a PR")
	for _, w := range stagetest.WriteRequests(f) {
		assert.NotContains(t, w, "/pulls", "no PR write expected, got %s", w)
	}
	assert.Empty(t, f.Snap.SubWorkItem(stagetest.ShipSWIID).Findings, "nothing is queued for a PR")
	assert.Contains(t, f.Comment(audit.Key(strconv.Itoa(f.Parent), "review", stagetest.ShipSWIID, "remediation-1")), "**Decision:** remediate")
}

func TestAssertREVIEW002_NonBlockingFindingsKept(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, []review.Finding{stagetest.WarningFinding()}, nil, []review.Finding{stagetest.InfoFinding()})

	res, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, pipeline.EventDone, res.Event, "proceed leaves the successor to the engine's integration gate")
	assert.Equal(t, []review.Finding{stagetest.WarningFinding(), stagetest.InfoFinding()}, storedNonBlocking(t, f))
	summary := f.Comment(audit.Key(strconv.Itoa(f.Parent), "review", stagetest.ShipSWIID))
	assert.Contains(t, summary, "**Decision:** proceed")
	assert.Contains(t, summary, "parameter frame is unused")
	assert.Contains(t, summary, "consider a package example")
	assert.Zero(t, f.Snap.SubWorkItem(stagetest.ShipSWIID).RemediationCycles)
}

func TestAssertREVIEW003_AllFourPassesInAggregate(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	// The constraint pass contributes a warning (off nominal, inside bounds).
	f.Dom.Values[0].Value = 150.0
	f.ScriptReviews(t, []review.Finding{stagetest.WarningFinding()}, nil, nil)
	f.Cfg.Constraints = stagetest.SpecConstraints

	_, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	var templates []string
	for _, r := range f.Script.Requests() {
		templates = append(templates, r.Template)
		if r.Template == "review_architecture" {
			var user string
			for _, m := range r.Messages {
				user += m.Content
			}
			assert.Contains(t, user, stagekit.ForbiddenImportsText(stagetest.SpecConstraints.ForbiddenImports),
				"the architecture pass reads the constraints in the one wording")
		}
	}
	assert.Equal(t, []string{"review_quality", "review_architecture", "review_security"}, templates,
		"three separate LLM calls, one per pass")
	require.Len(t, f.Dom.LlmRequestsAtExtract, 1, "constraint validation ran once")

	summary := f.Comment(audit.Key(strconv.Itoa(f.Parent), "review", stagetest.ShipSWIID))
	for _, p := range []string{review.PassConstraints, review.PassQuality, review.PassArchitecture, review.PassSecurity} {
		assert.Contains(t, summary, "| "+p+" |", "pass %s missing from the aggregate", p)
	}
	stored := storedNonBlocking(t, f)
	require.Len(t, stored, 2)
	assert.Equal(t, "interface SWD-IF-TEL-01 publish_period_ms", stored[0].Criterion, "constraint finding first")
	assert.Equal(t, stagetest.WarningFinding(), stored[1])
}

func TestAssertREVIEW004_BlockingFindingFedBack(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, []review.Finding{blockingFinding()}, nil, []review.Finding{stagetest.WarningFinding()})

	_, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	fb := f.Snap.SubWorkItem(stagetest.ShipSWIID).Feedback
	assert.Contains(t, fb, stagetest.ShipCodePath+":10 [blocking] (error handling): Publish discards the frame and always reports success",
		"feedback carries file, line, severity and explanation")
	assert.NotContains(t, fb, "parameter frame is unused", "non-blocking findings are not fed back")
}

func TestAssertREVIEW005_EscalatesAfterMaxCycles(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.Cfg.Budgets.ReviewMaxRemediationCycles = 2
	f.Snap.SubWorkItem(stagetest.ShipSWIID).RemediationCycles = 2
	f.ScriptReviews(t, nil, []review.Finding{blockingFinding()}, nil)

	_, err := f.Run(t, pipeline.StageReview)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "want an escalation, got %v", err)
	assert.Contains(t, esc.Reason, "after 2 remediation cycles")
	require.Len(t, esc.Attempts, 1)
	assert.Contains(t, esc.Attempts[0].Diagnostics, stagetest.ShipCodePath+":10 [blocking] (error handling): Publish discards the frame and always reports success")
	assert.Empty(t, f.Env.Sim.Pulls(testenv.Repo.String()))
}

func TestAssertXVAL003_ConstraintValidationFirstWithoutTokens(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.Dom.Values[0].Value = 20.0 // below min 50: blocking
	f.ScriptReviews(t, nil, nil, nil)

	res, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	require.Equal(t, []int{0}, f.Dom.LlmRequestsAtExtract, "extraction ran before any LLM request")
	require.Len(t, f.Dom.Artifacts, 1)
	assert.Equal(t, []domain.Artifact{{Path: stagetest.ShipCodePath, Content: stagetest.ShipCode}}, f.Dom.Artifacts[0], "the SWI's files come from its branch")
	// Only the three LLM passes are booked: the constraint pass costs nothing.
	assert.Equal(t, 3, f.Snap.Ledger.PerStage[string(pipeline.StageReview)].Calls)

	assert.Equal(t, pipeline.EventRemediate, res.Event, "a blocking constraint finding remediates")
	fb := f.Snap.SubWorkItem(stagetest.ShipSWIID).Feedback
	assert.Contains(t, fb, stagetest.ShipCodePath+":6 [blocking] (interface SWD-IF-TEL-01 publish_period_ms)")
	assert.Contains(t, fb, "actual 20")
	assert.Contains(t, fb, "owning domain firmware, violating domain software")
}

func TestReviewBudgetRefusalEscalates(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.Deps.LLM.Budget.MaxTokens = 10
	f.ScriptReviews(t, nil, nil, nil)

	_, err := f.Run(t, pipeline.StageReview)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "want an escalation, got %v", err)
	assert.Equal(t, stagekit.ReasonBudget, esc.Reason)
	assert.Empty(t, f.Script.Requests(), "nothing is sent over budget")
}

func TestConstraintFindingCarriesCoordinates(t *testing.T) {
	t.Parallel()
	got := reviewstage.ConstraintFinding(xvalFinding())
	assert.Equal(t, review.Finding{
		File: "telemetry/publish.go", Line: 6, Severity: domain.SeverityBlocking,
		Criterion:   "interface SWD-IF-TEL-01 publish_period_ms",
		Explanation: "value outside the contract's bounds (expected 50..200 ms, actual 20); owning domain firmware, violating domain software",
	}, got)
}

func xvalFinding() xval.Finding {
	return xval.Finding{
		Severity: domain.SeverityBlocking, InterfaceID: "SWD-IF-TEL-01", Parameter: "publish_period_ms",
		Expected: "50..200 ms", Actual: "20", OwnerDomain: "firmware", ViolatingDomain: "software",
		Artifact: "telemetry/publish.go", Line: 6, Message: "value outside the contract's bounds",
	}
}

func TestReviewPassesReadTheDiffAgainstTheBase(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, nil, nil, nil)
	_, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	n := 0
	for _, r := range f.Script.Requests() {
		if !strings.HasPrefix(r.Template, "review_") {
			continue
		}
		n++
		user := r.Messages[len(r.Messages)-1].Content
		assert.Contains(t, user, "--- /dev/null\n+++ b/"+stagetest.ShipCodePath+"\n@@ -0,0 +1,", "%s sees the new file as a diff against the interface branch", r.Template)
		assert.Contains(t, user, "+package telemetry\n")
	}
	assert.Equal(t, 3, n)
}

// TestConstraintPassWithoutExtraction: a domain service that does not
// offer extract_interfaces (the built-in command service) passes the
// constraint pass of a repository with no interface contract — before,
// every Python, TypeScript or Rust sub-work-item failed review on
// "unsupported_method" — and still fails it where a contract exists.
func TestConstraintPassWithoutExtraction(t *testing.T) {
	t.Parallel()
	unsupported := &domain.Error{Code: domain.CodeUnsupportedMethod, Message: `method "extract_interfaces" is not among the service's capabilities`}
	for _, tt := range []struct {
		name     string
		contract bool
	}{{"no contract", false}, {"a contract", true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stagetest.NewShipFixture(t, false)
			f.Dom.ExtractErr = unsupported
			if !tt.contract {
				f.Deps.Registry = &xval.Registry{}
			}
			f.ScriptReviews(t, nil, nil, nil)
			res, err := f.Run(t, pipeline.StageReview)
			if tt.contract {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "extract interfaces")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, pipeline.EventDone, res.Event)
		})
	}
}
