package stages_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/finding"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/untrustedtest"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/intake"
	"github.com/cogworks/cogworks/stages/integration"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/planning"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// TestStageRenderPathsCarryOnlyTheBotsMarkers renders every comment, PR
// body, sub-issue body and review comment a stage writes, with each hostile
// string of the corpus in every field that holds issue text or LLM output
// (ids excepted: planner.CheckID rejects hostile ones before rendering),
// and checks that the only markers in the result are the bot's own, that
// the hidden plan and interface lists still parse back, and that tables
// keep their columns.
func TestStageRenderPathsCarryOnlyTheBotsMarkers(t *testing.T) {
	t.Parallel()
	for _, h := range untrustedtest.Corpus(t) {
		t.Run("", func(t *testing.T) {
			exact := utf8.ValidString(h) && !strings.Contains(h, "ghp_") // JSON and redaction keep these unchanged

			c := classify.Classification{Type: classify.Type(h), AffectedModules: []string{h, h},
				EstimatedScope: classify.Scope{Files: 1, Complexity: h}, SafetyAffecting: true, Rationale: h + "\n" + h}
			out := audit.Format(audit.Comment{Key: "42/classification", Title: "Classification",
				Body: intake.ClassificationComment(c, false, &escalation.Error{Reason: h})})
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{"42/classification"}})

			it := planner.SubWorkItem{ID: "swi-1", Title: h, Description: h, Files: []string{h}, Interfaces: []string{h},
				Tests: h, DependsOn: []string{h}}
			marker := fmt.Sprintf("<!-- cogworks:swi=%d/%s -->", 42, it.ID)
			body := stagekit.SubIssueBody(42, marker, it, map[string]int{h: 7})
			untrustedtest.AssertOnlyBotMarkers(t, body, untrustedtest.Want{Blocks: []string{marker}})
			assert.NotContains(t, stagekit.OneLine(h), "<!", "issue and PR titles")

			items := []planner.SubWorkItem{it, {ID: "swi-2", Title: h, DependsOn: []string{"swi-1"}, Interfaces: []string{h}}}
			plan, err := planning.PlanComment("42/plan", items)
			require.NoError(t, err)
			out = audit.Format(plan)
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{"42/plan"}, Blocks: []string{planning.PlanMarker}})
			untrustedtest.AssertTablesIntact(t, out)
			back, err := planning.ParsePlan(github.Comment{Body: out})
			require.NoError(t, err, "the hidden plan parses back")
			if exact {
				assert.Equal(t, items, back)
			}

			decls := []pipeline.InterfaceDecl{{ID: h, Name: h, File: h, Summary: h}, {ID: "IF-1", Name: "n", File: "f.go", Summary: h}}
			out, err = interfaces.InterfacePullBody(42, 43, decls, []string{h})
			require.NoError(t, err)
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Blocks: []string{stagekit.InterfaceListMarker}})
			untrustedtest.AssertTablesIntact(t, out)
			got, ok := stagekit.ParseInterfaceList(out)
			require.True(t, ok, "the hidden interface list parses back")
			if exact {
				assert.Equal(t, decls, got)
			}

			untrustedtest.AssertOnlyBotMarkers(t, architecture.SpecPullBody(42, []string{h}), untrustedtest.Want{})

			finding := review.Finding{File: h, Line: 3, Severity: finding.Severity(h), Criterion: h, Explanation: h}
			out = integration.PRBody(integration.PRBodyInput{WorkItem: 42, SWI: pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "swi-1", DependsOn: []string{h}}, Issue: 50},
				Files: []domain.Artifact{{Path: h}}, SafetyCritical: true, Warnings: []string{h}, Other: []review.Finding{finding}})
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{})
			untrustedtest.AssertTablesIntact(t, out)

			inlineKey := audit.Key("42", "review", "swi-1", "inline")
			out = integration.InlineBody(finding, audit.Marker(inlineKey))
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{inlineKey}})

			res := review.Result{Decision: review.DecisionRemediate, Blocking: []review.Finding{finding}, NonBlocking: []review.Finding{finding},
				Passes: []review.Pass{{Name: review.PassSecurity, Findings: []review.Finding{finding}}}}
			out = audit.Format(audit.Comment{Key: "42/review/swi-1", Title: "Review of swi-1",
				Body: reviewstage.ReviewSummary(pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}, Issue: 50}, res, []string{h})})
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{"42/review/swi-1"}})
			untrustedtest.AssertTablesIntact(t, out)

			sr := scenario.Result{Overall: 0.5, Threshold: 0.9, FailureHits: []string{h}, Warnings: []string{h},
				Scenarios: []scenario.Outcome{{ID: h, Failures: []string{h}, FailedTests: []string{h}}}}
			out = audit.Format(audit.Comment{Key: "42/scenarios/swi-1", Title: "Scenario validation — swi-1", Body: sr.AuditMarkdown()})
			untrustedtest.AssertOnlyBotMarkers(t, out, untrustedtest.Want{Keys: []string{"42/scenarios/swi-1"}})
		})
	}
}
