package stages_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/planning"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// bidiControls are the Unicode direction controls audit.StripBidi removes.
const bidiControls = "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C"

// spoofed reads "Fix the exe.png upload" on screen while it says
// "gnp.exe": a right-to-left override, then isolates and marks.
const spoofed = "Fix the \u202Egnp.exe\u202C upload \u2066x\u2069\u200F"

// TestRedTeamBidiControlsNeverReachTitles: a U+202E (and the other
// direction controls) in an issue title or a plan's titles never reaches
// the titles and bodies the bot writes: the spec PR, the sub-issues, the
// plan comment and the integration PR. Before audit.StripBidi, OneLine
// (audit.Untrusted) kept them, and every title below carried the override.
func TestRedTeamBidiControlsNeverReachTitles(t *testing.T) {
	t.Parallel()
	repo := testenv.Repo.String()

	t.Run("issue title to spec PR", func(t *testing.T) {
		t.Parallel()
		f := stagetest.NewFHFixture(t, nil)
		title := spoofed
		_, err := f.Env.Client.UpdateIssue(t.Context(), testenv.Repo, f.Issue, github.IssueUpdate{Title: &title})
		require.NoError(t, err)
		f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
		_, err = f.Run(t, pipeline.StageArchitecture, f.Snapshot())
		require.NoError(t, err)
		pulls := f.Env.Sim.Pulls(repo)
		require.Len(t, pulls, 1)
		assert.Contains(t, pulls[0].Title, "Fix the gnp.exe upload x", "the title still reads, in stored order")
		assertNoBidi(t, "spec PR title", pulls[0].Title)
		assertNoBidi(t, "spec PR body", pulls[0].Body)
	})

	t.Run("plan titles to sub-issues and the plan comment", func(t *testing.T) {
		t.Parallel()
		f := stagetest.NewFHFixture(t, nil)
		plan := planner.Plan{SubWorkItems: []planner.SubWorkItem{stagetest.Item("A", []string{"IF-1"}), stagetest.Item("B", []string{"IF-2"}, "A")}}
		for i := range plan.SubWorkItems {
			plan.SubWorkItems[i].Title = spoofed
			plan.SubWorkItems[i].Description = "Do it.\n\n" + spoofed
		}
		f.AddJSON(t, prompts.Planning, plan)
		snap := f.PlanningSnapshot(t)
		_, err := f.Run(t, pipeline.StagePlanning, snap)
		require.NoError(t, err)
		require.Len(t, snap.SubWorkItems, 2)
		for _, r := range snap.SubWorkItems {
			is, ok := f.Env.Sim.Issue(repo, r.Issue)
			require.True(t, ok)
			assert.Contains(t, is.Title, "gnp.exe")
			assertNoBidi(t, "sub-issue title", is.Title)
			assertNoBidi(t, "sub-issue body", is.Body)
		}
		for _, c := range f.Env.Sim.Comments(repo, f.Issue) {
			// The plan's hidden block is the bot's record, never rendered;
			// what is read on screen is checked.
			shown, _, _ := strings.Cut(c.Body, planning.PlanMarker)
			assertNoBidi(t, "comment", shown)
		}
	})

	t.Run("plan title to integration PR", func(t *testing.T) {
		t.Parallel()
		f := stagetest.NewShipFixture(t, false)
		f.Snap.SubWorkItems[0].Title = spoofed
		f.ScriptReviews(t, nil, nil, nil)
		stagetest.ReviewThenIntegrate(t, f)
		pr := stagetest.OnlyPull(t, f)
		assert.Contains(t, pr.Title, "gnp.exe")
		assertNoBidi(t, "integration PR title", pr.Title)
		assertNoBidi(t, "integration PR body", pr.Body)
	})
}

func assertNoBidi(t *testing.T, where, s string) {
	t.Helper()
	assert.False(t, strings.ContainsAny(s, bidiControls), "%s carries a direction control: %q", where, s)
}
