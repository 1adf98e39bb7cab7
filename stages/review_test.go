package stages

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
)

func blockingFinding() review.Finding {
	return review.Finding{File: shipCodePath, Line: 10, Severity: review.SeverityBlocking, Criterion: "error handling",
		Explanation: "Publish discards the frame and always reports success"}
}

func storedNonBlocking(t *testing.T, f *shipFixture) []review.Finding {
	t.Helper()
	return f.snap.SubWorkItem(shipSWIID).Findings
}

func TestAssertREVIEW001_BlockingFindingNoPR(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, nil, nil, []review.Finding{blockingFinding(), warningFinding()})

	res, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventRemediate, res.Event, "remediation goes back to code generation")
	assert.Equal(t, 1, f.snap.SubWorkItem(shipSWIID).RemediationCycles)
	assert.Empty(t, f.env.Sim.Pulls(testenv.Repo.String()), "a blocking finding must not open a PR")
	for _, w := range writeRequests(f) {
		assert.NotContains(t, w, "/pulls", "no PR write expected, got %s", w)
	}
	assert.Empty(t, f.snap.SubWorkItem(shipSWIID).Findings, "nothing is queued for a PR")
	assert.Contains(t, f.comment(audit.Key(strconv.Itoa(f.parent), "review", shipSWIID, "remediation-1")), "**Decision:** remediate")
}

func TestAssertREVIEW002_NonBlockingFindingsKept(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, []review.Finding{warningFinding()}, nil, []review.Finding{infoFinding()})

	res, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, pipeline.EventDone, res.Event, "proceed leaves the successor to the engine's integration gate")
	assert.Equal(t, []review.Finding{warningFinding(), infoFinding()}, storedNonBlocking(t, f))
	summary := f.comment(audit.Key(strconv.Itoa(f.parent), "review", shipSWIID))
	assert.Contains(t, summary, "**Decision:** proceed")
	assert.Contains(t, summary, "parameter frame is unused")
	assert.Contains(t, summary, "consider a package example")
	assert.Zero(t, f.snap.SubWorkItem(shipSWIID).RemediationCycles)
}

func TestAssertREVIEW003_AllFourPassesInAggregate(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	// The constraint pass contributes a warning (off nominal, inside bounds).
	f.dom.values[0].Value = 150.0
	f.scriptReviews(t, []review.Finding{warningFinding()}, nil, nil)
	f.cfg.Constraints = specConstraints

	_, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	var templates []string
	for _, r := range f.script.Requests() {
		templates = append(templates, r.Template)
		if r.Template == "review_architecture" {
			var user string
			for _, m := range r.Messages {
				user += m.Content
			}
			assert.Contains(t, user, forbiddenImportsText(specConstraints.ForbiddenImports),
				"the architecture pass reads the constraints in the one wording")
		}
	}
	assert.Equal(t, []string{"review_quality", "review_architecture", "review_security"}, templates,
		"three separate LLM calls, one per pass")
	require.Len(t, f.dom.llmRequestsAtExtract, 1, "constraint validation ran once")

	summary := f.comment(audit.Key(strconv.Itoa(f.parent), "review", shipSWIID))
	for _, p := range []string{review.PassConstraints, review.PassQuality, review.PassArchitecture, review.PassSecurity} {
		assert.Contains(t, summary, "| "+p+" |", "pass %s missing from the aggregate", p)
	}
	stored := storedNonBlocking(t, f)
	require.Len(t, stored, 2)
	assert.Equal(t, "interface SWD-IF-TEL-01 publish_period_ms", stored[0].Criterion, "constraint finding first")
	assert.Equal(t, warningFinding(), stored[1])
}

func TestAssertREVIEW004_BlockingFindingFedBack(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, []review.Finding{blockingFinding()}, nil, []review.Finding{warningFinding()})

	_, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	fb := f.snap.SubWorkItem(shipSWIID).Feedback
	assert.Contains(t, fb, shipCodePath+":10 [blocking] (error handling): Publish discards the frame and always reports success",
		"feedback carries file, line, severity and explanation")
	assert.NotContains(t, fb, "parameter frame is unused", "non-blocking findings are not fed back")
}

func TestAssertREVIEW005_EscalatesAfterMaxCycles(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.cfg.Budgets.ReviewMaxRemediationCycles = 2
	f.snap.SubWorkItem(shipSWIID).RemediationCycles = 2
	f.scriptReviews(t, nil, []review.Finding{blockingFinding()}, nil)

	_, err := f.run(t, pipeline.StageReview)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "want an escalation, got %v", err)
	assert.Contains(t, esc.Reason, "after 2 remediation cycles")
	require.Len(t, esc.Attempts, 1)
	assert.Contains(t, esc.Attempts[0].Diagnostics, shipCodePath+":10 [blocking] (error handling): Publish discards the frame and always reports success")
	assert.Empty(t, f.env.Sim.Pulls(testenv.Repo.String()))
}

func TestAssertXVAL003_ConstraintValidationFirstWithoutTokens(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.dom.values[0].Value = 20.0 // below min 50: blocking
	f.scriptReviews(t, nil, nil, nil)

	res, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	require.Equal(t, []int{0}, f.dom.llmRequestsAtExtract, "extraction ran before any LLM request")
	require.Len(t, f.dom.artifacts, 1)
	assert.Equal(t, []domain.Artifact{{Path: shipCodePath, Content: shipCode}}, f.dom.artifacts[0], "the SWI's files come from its branch")
	// Only the three LLM passes are booked: the constraint pass costs nothing.
	assert.Equal(t, 3, f.snap.Ledger.PerStage[string(pipeline.StageReview)].Calls)

	assert.Equal(t, pipeline.EventRemediate, res.Event, "a blocking constraint finding remediates")
	fb := f.snap.SubWorkItem(shipSWIID).Feedback
	assert.Contains(t, fb, shipCodePath+":6 [blocking] (interface SWD-IF-TEL-01 publish_period_ms)")
	assert.Contains(t, fb, "actual 20")
	assert.Contains(t, fb, "owning domain firmware, violating domain software")
}

func TestReviewBudgetRefusalEscalates(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.deps.LLM.Budget.MaxTokens = 10
	f.scriptReviews(t, nil, nil, nil)

	_, err := f.run(t, pipeline.StageReview)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "want an escalation, got %v", err)
	assert.Equal(t, reasonBudget, esc.Reason)
	assert.Empty(t, f.script.Requests(), "nothing is sent over budget")
}

func TestConstraintFindingCarriesCoordinates(t *testing.T) {
	t.Parallel()
	got := constraintFinding(xvalFinding())
	assert.Equal(t, review.Finding{
		File: "telemetry/publish.go", Line: 6, Severity: review.SeverityBlocking,
		Criterion:   "interface SWD-IF-TEL-01 publish_period_ms",
		Explanation: "value outside the contract's bounds (expected 50..200 ms, actual 20); owning domain firmware, violating domain software",
	}, got)
}

func xvalFinding() xval.Finding {
	return xval.Finding{
		Severity: xval.SeverityBlocking, InterfaceID: "SWD-IF-TEL-01", Parameter: "publish_period_ms",
		Expected: "50..200 ms", Actual: "20", OwnerDomain: "firmware", ViolatingDomain: "software",
		Artifact: "telemetry/publish.go", Line: 6, Message: "value outside the contract's bounds",
	}
}

func TestReviewPassesReadTheDiffAgainstTheBase(t *testing.T) {
	t.Parallel()
	f := newShipFixture(t, false)
	f.scriptReviews(t, nil, nil, nil)
	_, err := f.run(t, pipeline.StageReview)
	require.NoError(t, err)
	n := 0
	for _, r := range f.script.Requests() {
		if !strings.HasPrefix(r.Template, "review_") {
			continue
		}
		n++
		user := r.Messages[len(r.Messages)-1].Content
		assert.Contains(t, user, "--- /dev/null\n+++ b/"+shipCodePath+"\n@@ -0,0 +1,", "%s sees the new file as a diff against the interface branch", r.Template)
		assert.Contains(t, user, "+package telemetry\n")
	}
	assert.Equal(t, 3, n)
}
