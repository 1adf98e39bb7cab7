package pipeline

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestParseLabels(t *testing.T) {
	tests := []struct {
		name   string
		labels []string
		want   LabelSet
	}{
		{name: "empty", labels: nil, want: LabelSet{}},
		{name: "foreign labels ignored", labels: []string{"bug", "good first issue", "cogworksrun"}, want: LabelSet{}},
		{
			name:   "parent at architecture waiting",
			labels: []string{"bug", LabelRun, "cogworks:stage:architecture", LabelAwaitingReview, LabelSafetyCritical},
			want:   LabelSet{Run: true, AwaitingReview: true, SafetyCritical: true, Stages: []Stage{StageArchitecture}},
		},
		{
			name:   "all fixed labels",
			labels: []string{LabelRun, LabelProcessing, LabelAwaitingReview, LabelApprove, LabelSafetyCritical, LabelRetry, LabelSubWorkItem},
			want:   LabelSet{Run: true, Processing: true, AwaitingReview: true, Approve: true, SafetyCritical: true, Retry: true, SubWorkItem: true},
		},
		{
			name:   "sub-work-item",
			labels: []string{LabelSubWorkItem, "cogworks:status:in-progress", "cogworks:depends-on:12", "cogworks:depends-on:7", "cogworks:depends-on:12", "cogworks:order:0"},
			want:   LabelSet{SubWorkItem: true, Status: SWIInProgress, DependsOn: []int{7, 12}, Order: 0, HasOrder: true},
		},
		{
			name:   "stages in pipeline order",
			labels: []string{"cogworks:stage:review", "cogworks:stage:intake"},
			want:   LabelSet{Stages: []Stage{StageIntake, StageReview}},
		},
		{
			name: "malformed and unknown cogworks labels are reported",
			labels: []string{
				"cogworks:stage:bogus", "cogworks:order:x", "cogworks:order:-1", "cogworks:order:007",
				"cogworks:depends-on:0", "cogworks:depends-on:abc", "cogworks:status:done",
				"cogworks:frobnicate", "CogWorks:Run", "cogworks:",
			},
			want: LabelSet{Unknown: []string{
				"CogWorks:Run", "cogworks:", "cogworks:depends-on:0", "cogworks:depends-on:abc", "cogworks:frobnicate",
				"cogworks:order:-1", "cogworks:order:007", "cogworks:order:x", "cogworks:stage:bogus", "cogworks:status:done",
			}},
		},
		{
			name:   "conflicting status and order: the extra ones are reported",
			labels: []string{"cogworks:status:pending", "cogworks:status:failed", "cogworks:order:3", "cogworks:order:2"},
			want: LabelSet{Status: SWIFailed, Order: 2, HasOrder: true,
				Unknown: []string{"cogworks:order:3", "cogworks:status:pending"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, ParseLabels(tt.labels))
		})
	}
}

func TestLabelSetEncode(t *testing.T) {
	ls := LabelSet{
		Run: true, Processing: true, Stages: []Stage{StageInterfaceDesign},
		Status: SWICompleted, DependsOn: []int{3, 11}, Order: 4, HasOrder: true,
		Unknown: []string{"cogworks:zzz"},
	}
	assert.Equal(t, []string{
		"cogworks:depends-on:11", "cogworks:depends-on:3", "cogworks:order:4", "cogworks:processing",
		"cogworks:run", "cogworks:stage:interface-design", "cogworks:status:completed", "cogworks:zzz",
	}, ls.Encode())
	assert.Empty(t, LabelSet{}.Encode())
}

func TestLabelSetStage(t *testing.T) {
	st, err := LabelSet{}.Stage()
	require.NoError(t, err)
	assert.Equal(t, Stage(""), st)

	st, err = LabelSet{Stages: []Stage{StagePlanning}}.Stage()
	require.NoError(t, err)
	assert.Equal(t, StagePlanning, st)

	_, err = ParseLabels([]string{"cogworks:stage:review", "cogworks:stage:intake"}).Stage()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cogworks:stage:intake")
	assert.Contains(t, err.Error(), "cogworks:stage:review")
}

func TestLabelConstructors(t *testing.T) {
	assert.Equal(t, "cogworks:stage:code-generation", StageLabel(StageCodeGeneration))
	assert.Equal(t, "cogworks:status:in-progress", StatusLabel(SWIInProgress))
	assert.Equal(t, "cogworks:depends-on:42", DependsOnLabel(42))
	assert.Equal(t, "cogworks:order:0", OrderLabel(0))
}

func TestLabelSpec(t *testing.T) {
	every := []string{LabelRun, LabelProcessing, LabelAwaitingReview, LabelApprove, LabelSafetyCritical,
		LabelRetry, LabelSubWorkItem, DependsOnLabel(9), OrderLabel(2)}
	for _, st := range AllStages() {
		every = append(every, StageLabel(st))
	}
	for _, s := range []SWIStatus{SWIPending, SWIInProgress, SWICompleted, SWIFailed} {
		every = append(every, StatusLabel(s))
	}
	for _, name := range every {
		t.Run(name, func(t *testing.T) {
			color, desc, ok := LabelSpec(name)
			require.True(t, ok)
			assert.Regexp(t, `^[0-9a-f]{6}$`, color)
			assert.NotEmpty(t, desc)
			assert.LessOrEqual(t, len(desc), 100, "GitHub limits label descriptions to 100 characters")
		})
	}
	for _, name := range []string{"bug", "cogworks:stage:bogus", "cogworks:order:x", "cogworks:depends-on:0", "cogworks:status:x"} {
		_, _, ok := LabelSpec(name)
		assert.False(t, ok, name)
	}
}

// genLabelSet generates canonical label sets: the form ParseLabels returns.
func genLabelSet() *rapid.Generator[LabelSet] {
	return rapid.Custom(func(t *rapid.T) LabelSet {
		ls := LabelSet{
			Run:            rapid.Bool().Draw(t, "run"),
			Processing:     rapid.Bool().Draw(t, "processing"),
			AwaitingReview: rapid.Bool().Draw(t, "awaiting"),
			Approve:        rapid.Bool().Draw(t, "approve"),
			SafetyCritical: rapid.Bool().Draw(t, "safety"),
			Retry:          rapid.Bool().Draw(t, "retry"),
			SubWorkItem:    rapid.Bool().Draw(t, "swi"),
		}
		for _, st := range AllStages() {
			if rapid.IntRange(0, 4).Draw(t, "stage "+string(st)) == 0 {
				ls.Stages = append(ls.Stages, st)
			}
		}
		ls.Status = rapid.SampledFrom([]SWIStatus{"", SWIPending, SWIInProgress, SWICompleted, SWIFailed}).Draw(t, "status")
		deps := rapid.SliceOfDistinct(rapid.IntRange(1, 100000), rapid.ID[int]).Draw(t, "deps")
		if len(deps) > 0 {
			ls.DependsOn = append([]int(nil), deps...)
			slices.Sort(ls.DependsOn)
		}
		ls.HasOrder = rapid.Bool().Draw(t, "has order")
		if ls.HasOrder {
			ls.Order = rapid.IntRange(0, 1000).Draw(t, "order")
		}
		unknown := rapid.SliceOfDistinct(
			rapid.StringMatching(`cogworks:(x-[a-z0-9:-]{0,12}|stage:zz[a-z]{0,5}|order:-[1-9][0-9]{0,3})`),
			rapid.ID[string]).Draw(t, "unknown")
		if len(unknown) > 0 {
			ls.Unknown = append([]string(nil), unknown...)
			slices.Sort(ls.Unknown)
		}
		return ls
	})
}

func TestLabelCodecRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ls := genLabelSet().Draw(t, "labels")
		encoded := ls.Encode()
		parsed := ParseLabels(encoded)
		require.Equal(t, ls, parsed)
		require.Equal(t, encoded, parsed.Encode())
	})
}

// knownLabel is an oracle written independently of the codec: whether name
// is a CogWorks label the codec must understand.
func knownLabel(name string) bool {
	switch name {
	case "cogworks:run", "cogworks:processing", "cogworks:awaiting-review", "cogworks:approve",
		"cogworks:safety-critical", "cogworks:retry", "cogworks:sub-work-item":
		return true
	}
	if rest, ok := strings.CutPrefix(name, "cogworks:stage:"); ok {
		_, err := ParseStage(rest)
		return err == nil
	}
	if rest, ok := strings.CutPrefix(name, "cogworks:status:"); ok {
		return rest == "pending" || rest == "in-progress" || rest == "completed" || rest == "failed"
	}
	if rest, ok := strings.CutPrefix(name, "cogworks:depends-on:"); ok {
		n, err := strconv.Atoi(rest)
		return err == nil && n >= 1 && strconv.Itoa(n) == rest
	}
	if rest, ok := strings.CutPrefix(name, "cogworks:order:"); ok {
		n, err := strconv.Atoi(rest)
		return err == nil && n >= 0 && strconv.Itoa(n) == rest
	}
	return false
}

func TestParseLabelsArbitraryInputProperty(t *testing.T) {
	label := rapid.OneOf(
		rapid.String(),
		rapid.StringMatching(`(cogworks|CogWorks):(stage|status|order|depends-on|run|retry)?:?[a-z0-9-]{0,8}`),
		rapid.SampledFrom([]string{LabelRun, LabelRetry, "cogworks:stage:review", "cogworks:order:3", "bug"}),
	)
	rapid.Check(t, func(t *rapid.T) {
		labels := rapid.SliceOf(label).Draw(t, "labels")
		ls := ParseLabels(labels) // must not panic
		encoded := ls.Encode()
		for _, l := range labels {
			lower := strings.ToLower(l)
			if !strings.HasPrefix(lower, "cogworks:") {
				require.NotContains(t, encoded, l, "foreign label %q must be ignored", l)
				continue
			}
			// Nothing in the cogworks: namespace is silently dropped.
			require.Contains(t, encoded, l)
			if !knownLabel(l) {
				require.Contains(t, ls.Unknown, l, "unknown cogworks label %q must be reported", l)
			}
		}
		require.Equal(t, ls, ParseLabels(encoded))
	})
}
