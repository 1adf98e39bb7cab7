//go:build e2e

package stages_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// Measurements of the real-shape benchmark (realshape_test.go).

// realScenarioFailsAtBase runs the case's held-out scenario test on the
// base tree: it must fail there (a failing test, not a build error), so
// its passing in the pipeline is the fix's doing.
func realScenarioFailsAtBase(t *testing.T, c realCase, base map[string]string, ws string, dom *domain.Client) bool {
	t.Helper()
	res, err := dom.Simulate(context.Background(), domain.Request{WorkItem: "realshape-base", Repository: domain.Repository{Path: ws},
		Artifacts: []domain.Artifact{{Path: c.scenarioTo, Content: base[".cogworks/scenarios/"+c.name+c.scenarioFile()]}}},
		domain.SimulateParams{Packages: []string{c.scenarioPkg}, Filter: c.scenarioFilter})
	require.NoError(t, err)
	if c.service != nil {
		// A command service reports each test: one the filter names failed.
		return !res.Passed && slices.ContainsFunc(res.Tests, func(tr domain.TestResult) bool {
			return !tr.Passed && !tr.Skipped && strings.Contains(tr.Name, c.scenarioFilter)
		})
	}
	return !res.Passed && strings.Contains(res.Output, "--- FAIL: "+c.scenarioFilter)
}

// realMeasurePrompts records each template's largest prompt, the
// code-generation prompts, the recall of the fixed files in them (the
// file's current content is in the prompt: every old string of its edits)
// and whether the issue text reached them.
func realMeasurePrompts(c realCase, reqs []llm.Request, res *realResult) {
	var codegen []llm.Request
	for _, r := range reqs {
		n := realRequestTokens(r)
		res.promptTokens[r.Template] = max(res.promptTokens[r.Template], n)
		if r.Template == prompts.Architecture && stagetest.ContainsText(r, fmt.Sprintf("module %q does not exist", c.module)) {
			res.rootModuleRefused = true
		}
		if r.Template == "interpret_failure" {
			res.interpretPrompts = append(res.interpretPrompts, r)
		}
		if r.Template == "code_generation" {
			codegen = append(codegen, r)
			res.codegenTokens = append(res.codegenTokens, n)
		}
	}
	if len(codegen) == 0 {
		return
	}
	first := codegen[0]
	res.issueInPrompt = stagetest.ContainsText(first, realIssueMarker)
	fixed := map[string][]string{}
	for _, e := range c.fix.Edits {
		fixed[e.Path] = append(fixed[e.Path], e.Old)
	}
	seen := 0
	for p, olds := range fixed {
		ok := stagetest.ContainsText(first, p)
		for _, o := range olds {
			ok = ok && stagetest.ContainsText(first, o)
		}
		if ok {
			seen++
		}
	}
	if len(fixed) > 0 {
		res.recall = float64(seen) / float64(len(fixed))
	}
}

// realExcusedFailures collects what the pipeline reported as test
// failures that are not regressions: in the audit trail's comments and,
// marked "(in the PR)", in a PR body.
func realExcusedFailures(env *testenv.Env, repo string) []string {
	var out []string
	add := func(note string) {
		if !slices.Contains(out, note) {
			out = append(out, note)
		}
	}
	for n := 1; n <= 20; n++ {
		for _, c := range env.Sim.Comments(repo, n) {
			for _, l := range strings.Split(c.Body, "\n") {
				if _, notes, ok := strings.Cut(l, "Not regressions: "); ok {
					add(notes)
				}
			}
		}
	}
	for _, p := range env.Sim.Pulls(repo) {
		_, section, ok := strings.Cut(p.Body, "## Tests\n")
		if !ok {
			continue
		}
		section, _, _ = strings.Cut(section, "\n## ")
		for _, l := range strings.Split(section, "\n") {
			if note, ok := strings.CutPrefix(l, "- "); ok {
				add("(in the PR) " + note)
			}
		}
	}
	return out
}

func realRequestTokens(r llm.Request) int {
	n := llm.EstimateTokens(r.System) + llm.EstimateTokens(string(r.Schema))
	for _, m := range r.Messages {
		n += llm.EstimateTokens(m.Content)
	}
	return n
}

// realChangedLines counts the lines the fix adds or removes, file by file
// (a multiset difference: enough for "a fix under 50 lines").
func realChangedLines(base, want map[string]string) int {
	n := 0
	for p, w := range want {
		if base[p] == w {
			continue
		}
		count := map[string]int{}
		for _, l := range strings.Split(base[p], "\n") {
			count[l]++
		}
		for _, l := range strings.Split(w, "\n") {
			count[l]--
		}
		for _, v := range count {
			n += max(v, -v)
		}
	}
	return n
}

// realTreeDiff lists the paths whose bytes differ between want and got.
func realTreeDiff(want, got map[string]string) []string {
	var diff []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diff = append(diff, "missing "+p)
		} else if g != w {
			diff = append(diff, "differs "+p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diff = append(diff, "extra "+p)
		}
	}
	sort.Strings(diff)
	return diff
}

// realTable renders the figures as a Markdown table.
func realTable(rs []realResult) string {
	var b strings.Builder
	b.WriteString("| case | completed | exact tree | fix tests ran | recall | issue in prompt | prompt tokens per stage (max) | code-gen output tokens | fix lines | GitHub requests | wall |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	var codegen []int
	for _, r := range rs {
		if r.name == "" {
			continue // left out by a -run filter
		}
		done := "y"
		if r.interfaceStandIn != "" {
			done = "y*"
		}
		if !r.completed {
			done = "n: " + r.stoppedAt
		}
		exact := "-"
		if r.completed {
			exact = yn(r.exactTree)
		}
		var stages []string
		for tmpl, n := range r.promptTokens {
			stages = append(stages, fmt.Sprintf("%s %d", tmpl, n))
		}
		sort.Strings(stages)
		codegen = append(codegen, r.codegenTokens...)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f%% | %s | %s | %d | %d | %d | %.1fs |\n", r.name, done, exact, yn(r.fixTestsRan),
			100*r.recall, yn(r.issueInPrompt), strings.Join(stages, ", "), r.outputTokens, r.fixLines, r.ghRequests, r.wall.Seconds())
	}
	slices.Sort(codegen)
	if len(codegen) > 0 {
		fmt.Fprintf(&b, "\nmedian code-generation prompt: %d tokens over %d prompts\n", codegen[len(codegen)/2], len(codegen))
	}
	for _, r := range rs {
		if r.interfaceStandIn != "" {
			b.WriteString("y*: completes only with the interface stage's 422 on a design that changes nothing replaced by a pass\n")
			break
		}
	}
	for _, r := range rs {
		for _, e := range r.excused {
			fmt.Fprintf(&b, "%s: not regressions: %s\n", r.name, e)
		}
	}
	for _, r := range rs {
		if r.name != "" && !r.completed {
			fmt.Fprintf(&b, "%s stopped at %s: %s\n", r.name, r.stoppedAt, r.stopReason)
		}
	}
	return b.String()
}

func yn(b bool) string {
	if b {
		return "y"
	}
	return "n"
}
