package pipeline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Fixed CogWorks labels (docs/spec.md §4).
const (
	LabelRun            = "cogworks:run"
	LabelProcessing     = "cogworks:processing"
	LabelAwaitingReview = "cogworks:awaiting-review"
	LabelApprove        = "cogworks:approve"
	LabelSafetyCritical = "cogworks:safety-critical"
	LabelRetry          = "cogworks:retry"
	LabelSubWorkItem    = "cogworks:sub-work-item"
)

// Prefixes of the parameterised CogWorks labels.
const (
	LabelPrefix          = "cogworks:"
	LabelStagePrefix     = "cogworks:stage:"
	LabelStatusPrefix    = "cogworks:status:"
	LabelDependsOnPrefix = "cogworks:depends-on:"
	LabelOrderPrefix     = "cogworks:order:"
)

// SWIStatus is the status of a sub-work-item, carried by its
// cogworks:status:<s> label.
type SWIStatus string

// Sub-work-item statuses.
const (
	SWIPending    SWIStatus = "pending"
	SWIInProgress SWIStatus = "in-progress"
	SWICompleted  SWIStatus = "completed"
	SWIFailed     SWIStatus = "failed"
)

// Valid reports whether s is one of the four known statuses.
func (s SWIStatus) Valid() bool {
	switch s {
	case SWIPending, SWIInProgress, SWICompleted, SWIFailed:
		return true
	}
	return false
}

// LabelSet is the typed view of an issue's CogWorks labels. The zero value
// is an issue without CogWorks labels.
type LabelSet struct {
	Run            bool
	Processing     bool
	AwaitingReview bool
	Approve        bool
	SafetyCritical bool
	Retry          bool
	SubWorkItem    bool
	// Stages holds every cogworks:stage:<s> label, in pipeline order. A
	// healthy parent issue has exactly one; see Stage.
	Stages []Stage
	// Status is the sub-work-item status, "" when absent.
	Status SWIStatus
	// DependsOn holds the issue numbers of cogworks:depends-on:<n>,
	// sorted ascending, without duplicates.
	DependsOn []int
	// Order is the value of cogworks:order:<n>, meaningful when HasOrder.
	Order    int
	HasOrder bool
	// Unknown holds cogworks:* labels the codec does not understand
	// (unknown names, bad stage or status values, malformed numbers,
	// conflicting second status or order labels), sorted. They are
	// reported, never dropped, and Encode emits them verbatim.
	Unknown []string
}

// fixedLabels maps each fixed label to its field in a LabelSet.
func fixedLabels(ls *LabelSet) map[string]*bool {
	return map[string]*bool{
		LabelRun:            &ls.Run,
		LabelProcessing:     &ls.Processing,
		LabelAwaitingReview: &ls.AwaitingReview,
		LabelApprove:        &ls.Approve,
		LabelSafetyCritical: &ls.SafetyCritical,
		LabelRetry:          &ls.Retry,
		LabelSubWorkItem:    &ls.SubWorkItem,
	}
}

// IsCogWorksLabel reports whether name is in the cogworks: namespace
// (compared case-insensitively, as GitHub compares label names).
func IsCogWorksLabel(name string) bool {
	return len(name) >= len(LabelPrefix) && strings.EqualFold(name[:len(LabelPrefix)], LabelPrefix)
}

// ParseLabels decodes the CogWorks labels among labels. Labels outside the
// cogworks: namespace are ignored; cogworks: labels the codec cannot
// decode are collected in Unknown. The result does not depend on the
// order of labels.
func ParseLabels(labels []string) LabelSet {
	var ls LabelSet
	fixed := fixedLabels(&ls)
	sorted := append([]string(nil), labels...)
	sort.Strings(sorted)
	stages := map[Stage]bool{}
	deps := map[int]bool{}
	unknown := map[string]bool{}
	for _, l := range sorted {
		if !IsCogWorksLabel(l) {
			continue
		}
		if field, ok := fixed[l]; ok {
			*field = true
			continue
		}
		switch {
		case strings.HasPrefix(l, LabelStagePrefix):
			st := Stage(strings.TrimPrefix(l, LabelStagePrefix))
			if !st.Valid() {
				unknown[l] = true
				continue
			}
			stages[st] = true
		case strings.HasPrefix(l, LabelStatusPrefix):
			st := SWIStatus(strings.TrimPrefix(l, LabelStatusPrefix))
			switch {
			case !st.Valid():
				unknown[l] = true
			case ls.Status == "" || ls.Status == st:
				ls.Status = st
			default: // a second, conflicting status is reported
				unknown[l] = true
			}
		case strings.HasPrefix(l, LabelDependsOnPrefix):
			n, ok := canonicalInt(strings.TrimPrefix(l, LabelDependsOnPrefix))
			if !ok || n < 1 {
				unknown[l] = true
				continue
			}
			deps[n] = true
		case strings.HasPrefix(l, LabelOrderPrefix):
			n, ok := canonicalInt(strings.TrimPrefix(l, LabelOrderPrefix))
			switch {
			case !ok || n < 0:
				unknown[l] = true
			case !ls.HasOrder || ls.Order == n:
				ls.Order, ls.HasOrder = n, true
			default: // a second, conflicting order is reported
				unknown[l] = true
			}
		default:
			unknown[l] = true
		}
	}
	for _, st := range stageOrder {
		if stages[st] {
			ls.Stages = append(ls.Stages, st)
		}
	}
	for n := range deps {
		ls.DependsOn = append(ls.DependsOn, n)
	}
	sort.Ints(ls.DependsOn)
	for l := range unknown {
		ls.Unknown = append(ls.Unknown, l)
	}
	sort.Strings(ls.Unknown)
	return ls
}

// canonicalInt parses s as a decimal integer written the way
// strconv.Itoa writes it, so that decoding and encoding agree.
func canonicalInt(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

// Encode returns the label strings for ls, sorted and without duplicates.
// Unknown labels are included verbatim, so that Encode(ParseLabels(x))
// keeps every cogworks: label of x.
func (ls LabelSet) Encode() []string {
	set := map[string]bool{}
	for name, field := range fixedLabels(&ls) {
		if *field {
			set[name] = true
		}
	}
	for _, st := range ls.Stages {
		set[StageLabel(st)] = true
	}
	if ls.Status != "" {
		set[StatusLabel(ls.Status)] = true
	}
	for _, n := range ls.DependsOn {
		set[DependsOnLabel(n)] = true
	}
	if ls.HasOrder {
		set[OrderLabel(ls.Order)] = true
	}
	for _, l := range ls.Unknown {
		set[l] = true
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// Stage returns the single current stage. No stage label yields "" and no
// error (a fresh work item); more than one is an error naming them.
func (ls LabelSet) Stage() (Stage, error) {
	switch len(ls.Stages) {
	case 0:
		return "", nil
	case 1:
		return ls.Stages[0], nil
	}
	names := make([]string, len(ls.Stages))
	for i, st := range ls.Stages {
		names[i] = StageLabel(st)
	}
	return "", fmt.Errorf("issue carries %d stage labels (%s); exactly one is allowed", len(names), strings.Join(names, ", "))
}

// StageLabel returns the cogworks:stage:<s> label.
func StageLabel(s Stage) string { return LabelStagePrefix + string(s) }

// StatusLabel returns the cogworks:status:<s> label.
func StatusLabel(s SWIStatus) string { return LabelStatusPrefix + string(s) }

// DependsOnLabel returns the cogworks:depends-on:<issue> label.
func DependsOnLabel(issue int) string { return LabelDependsOnPrefix + strconv.Itoa(issue) }

// OrderLabel returns the cogworks:order:<n> label.
func OrderLabel(n int) string { return LabelOrderPrefix + strconv.Itoa(n) }

// RepositoryLabels are the repository labels CogWorks uses with a fixed
// name: `cogworks init` creates them and `doctor` checks them (the
// per-issue depends-on and order labels are created on first use).
func RepositoryLabels() []string {
	names := []string{LabelRun, LabelApprove, LabelRetry, LabelProcessing,
		LabelAwaitingReview, LabelSafetyCritical, LabelSubWorkItem}
	for _, st := range AllStages() {
		names = append(names, StageLabel(st))
	}
	for _, s := range []SWIStatus{SWIPending, SWIInProgress, SWICompleted, SWIFailed} {
		names = append(names, StatusLabel(s))
	}
	return names
}

// Label colours, grouped by purpose.
const (
	colorTrigger  = "0e8a16" // green: a human starts or resumes work
	colorState    = "1d76db" // blue: where the pipeline is
	colorWaiting  = "fbca04" // yellow: a human is needed
	colorDanger   = "b60205" // red: safety or failure
	colorInternal = "c5def5" // pale: bookkeeping
)

// LabelSpec returns the colour (hex, no '#') and description to use when
// creating the repository label name on first use. ok is false for names
// that are not CogWorks labels.
func LabelSpec(name string) (color, description string, ok bool) {
	switch name {
	case LabelRun:
		return colorTrigger, "Run the CogWorks pipeline on this issue", true
	case LabelProcessing:
		return colorInternal, "CogWorks is processing this issue (lock)", true
	case LabelAwaitingReview:
		return colorWaiting, "A CogWorks gate is waiting for human approval", true
	case LabelApprove:
		return colorTrigger, "Approve the waiting CogWorks gate (write access required)", true
	case LabelSafetyCritical:
		return colorDanger, "Classified safety-affecting: code-producing gates need a human", true
	case LabelRetry:
		return colorTrigger, "Resume a failed CogWorks pipeline at the failed stage", true
	case LabelSubWorkItem:
		return colorInternal, "A CogWorks sub-work-item", true
	}
	switch {
	case strings.HasPrefix(name, LabelStagePrefix):
		st := Stage(strings.TrimPrefix(name, LabelStagePrefix))
		switch {
		case st == StageFailed:
			return colorDanger, "CogWorks pipeline failed; see the failure report", true
		case st == StageComplete:
			return colorTrigger, "CogWorks pipeline complete", true
		case st.Valid():
			return colorState, "CogWorks stage: " + string(st), true
		}
	case strings.HasPrefix(name, LabelStatusPrefix):
		st := SWIStatus(strings.TrimPrefix(name, LabelStatusPrefix))
		if st == SWIFailed {
			return colorDanger, "Sub-work-item status: failed", true
		}
		if st.Valid() {
			return colorState, "Sub-work-item status: " + string(st), true
		}
	case strings.HasPrefix(name, LabelDependsOnPrefix):
		if n, ok := canonicalInt(strings.TrimPrefix(name, LabelDependsOnPrefix)); ok && n >= 1 {
			return colorInternal, fmt.Sprintf("Sub-work-item depends on #%d", n), true
		}
	case strings.HasPrefix(name, LabelOrderPrefix):
		if n, ok := canonicalInt(strings.TrimPrefix(name, LabelOrderPrefix)); ok && n >= 0 {
			return colorInternal, fmt.Sprintf("Sub-work-item position %d in topological order", n), true
		}
	}
	return "", "", false
}
