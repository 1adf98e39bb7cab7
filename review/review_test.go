package review

import (
	"path/filepath"
	"testing"

	"github.com/cogworks/cogworks/finding"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func mkFinding(file string, line int, sev finding.Severity, expl string) Finding {
	return Finding{File: file, Line: line, Severity: sev, Criterion: "c", Explanation: expl}
}

func fourPasses(constraint, quality, arch, security []Finding) []Pass {
	mk := func(name string, fs []Finding) Pass {
		passed := true
		for _, f := range fs {
			if f.Severity == finding.Blocking {
				passed = false
			}
		}
		return Pass{Name: name, Passed: passed, Findings: fs}
	}
	return []Pass{
		mk(PassConstraints, constraint), mk(PassQuality, quality),
		mk(PassArchitecture, arch), mk(PassSecurity, security),
	}
}

func TestAssertREVIEW001_BlockingFindingRemediates(t *testing.T) {
	blocking := mkFinding("telemetry/can.go", 12, finding.Blocking, "bus load 0.55 exceeds 0.50")
	tests := []struct {
		name   string
		passes []Pass
	}{
		{"in constraint pass", fourPasses([]Finding{blocking}, nil, nil, nil)},
		{"in security pass among warnings", fourPasses(nil, []Finding{mkFinding("a.go", 1, finding.Warning, "w")}, nil, []Finding{blocking})},
		{"unknown severity counts as blocking", fourPasses(nil, []Finding{mkFinding("a.go", 1, "critical", "x")}, nil, nil)},
		{"failed pass without findings", []Pass{{Name: PassQuality, Passed: false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Aggregate(tt.passes)
			assert.Equal(t, DecisionRemediate, res.Decision)
			require.NotEmpty(t, res.Blocking)
		})
	}
}

func TestAssertREVIEW002_NonBlockingFindingsPreserved(t *testing.T) {
	w := mkFinding("a.go", 3, finding.Warning, "long function")
	i := mkFinding("b.go", 9, finding.Informational, "consider a table test")
	w2 := mkFinding("c.go", 1, finding.Warning, "nominal deviation")
	res := Aggregate(fourPasses([]Finding{w2}, []Finding{w}, nil, []Finding{i}))
	assert.Equal(t, DecisionProceed, res.Decision)
	assert.Empty(t, res.Blocking)
	assert.Equal(t, []Finding{w2, w, i}, res.NonBlocking)
}

func TestAssertREVIEW003_AllFourPassesInAggregate(t *testing.T) {
	passes := fourPasses(nil, nil, []Finding{mkFinding("x.go", 2, finding.Warning, "w")}, nil)
	res := Aggregate(passes)
	names := make([]string, len(res.Passes))
	for i, p := range res.Passes {
		names[i] = p.Name
	}
	assert.Equal(t, []string{PassConstraints, PassQuality, PassArchitecture, PassSecurity}, names)
	assert.Equal(t, passes, res.Passes)
}

func TestAssertREVIEW004_BlockingFindingsFedBack(t *testing.T) {
	res := Aggregate(fourPasses(
		[]Finding{{File: "telemetry/can.go", Line: 12, Severity: finding.Blocking, Criterion: "SWD-IF-CAN-01 max_bus_load", Explanation: "bus load 0.55 exceeds max 0.50"}},
		nil, nil,
		[]Finding{{File: "cmd/main.go", Line: 40, Severity: finding.Blocking, Criterion: "secrets", Explanation: "API key logged"}, mkFinding("ok.go", 1, finding.Warning, "not fed back")},
	))
	act := NextAction(res, 0, 3)
	require.Equal(t, ActionRemediate, act.Kind)
	assert.Contains(t, act.Feedback, "telemetry/can.go:12 [blocking] (SWD-IF-CAN-01 max_bus_load): bus load 0.55 exceeds max 0.50")
	assert.Contains(t, act.Feedback, "cmd/main.go:40 [blocking] (secrets): API key logged")
	assert.NotContains(t, act.Feedback, "not fed back")
	testkit.Golden(t, filepath.Join("testdata", "feedback.golden"), act.Feedback)
}

func TestAssertREVIEW005_EscalateAfterMaxCycles(t *testing.T) {
	res := Aggregate(fourPasses([]Finding{mkFinding("a.go", 1, finding.Blocking, "still wrong")}, nil, nil, nil))
	tests := []struct {
		cycles, max int
		want        ActionKind
	}{
		{0, 3, ActionRemediate},
		{2, 3, ActionRemediate},
		{3, 3, ActionEscalate},
		{5, 3, ActionEscalate},
		{0, 0, ActionEscalate},
	}
	for _, tt := range tests {
		act := NextAction(res, tt.cycles, tt.max)
		assert.Equal(t, tt.want, act.Kind, "cycles=%d max=%d", tt.cycles, tt.max)
		assert.Contains(t, act.Feedback, "a.go:1 [blocking]")
	}
	assert.Equal(t, Action{Kind: ActionProceed}, NextAction(Aggregate(fourPasses(nil, nil, nil, nil)), 9, 3),
		"a clean review proceeds whatever the cycle count")
}

func TestPropertyAggregationBlockingMonotone(t *testing.T) {
	sev := rapid.SampledFrom([]finding.Severity{finding.Blocking, finding.Warning, finding.Informational})
	genFinding := rapid.Custom(func(t *rapid.T) Finding {
		return Finding{
			File:        rapid.StringMatching(`[a-z]{1,5}\.go`).Draw(t, "file"),
			Line:        rapid.IntRange(0, 500).Draw(t, "line"),
			Severity:    sev.Draw(t, "sev"),
			Explanation: rapid.String().Draw(t, "expl"),
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		passes := make([]Pass, rapid.IntRange(1, 4).Draw(t, "passes"))
		for i := range passes {
			passes[i] = Pass{Name: "p", Passed: true, Findings: rapid.SliceOfN(genFinding, 0, 5).Draw(t, "findings")}
		}
		before := Aggregate(passes)

		// Adding a blocking finding never turns remediate into proceed, and
		// always yields remediate.
		k := rapid.IntRange(0, len(passes)-1).Draw(t, "k")
		added := clonePasses(passes)
		added[k].Findings = append(added[k].Findings, Finding{File: "x.go", Line: 1, Severity: finding.Blocking})
		if Aggregate(added).Decision != DecisionRemediate {
			t.Fatalf("adding a blocking finding gave %s (before %s)", Aggregate(added).Decision, before.Decision)
		}

		// Removing every blocking finding yields proceed and keeps the rest.
		cleared := clonePasses(passes)
		nonBlocking := 0
		for i := range cleared {
			var keep []Finding
			for _, f := range cleared[i].Findings {
				if f.Severity != finding.Blocking {
					keep = append(keep, f)
				}
			}
			nonBlocking += len(keep)
			cleared[i].Findings = keep
		}
		after := Aggregate(cleared)
		if after.Decision != DecisionProceed || len(after.NonBlocking) != nonBlocking {
			t.Fatalf("without blocking findings: decision %s, %d non-blocking (want %d)", after.Decision, len(after.NonBlocking), nonBlocking)
		}
	})
}

func clonePasses(ps []Pass) []Pass {
	out := make([]Pass, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].Findings = append([]Finding(nil), p.Findings...)
	}
	return out
}
