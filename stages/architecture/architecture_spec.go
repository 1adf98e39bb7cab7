package architecture

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// Specification is the architecture stage's structured LLM output (docs/spec.md
// §5.2). ProposedValues is a CogWorks extension of the spec's field list:
// the numeric values the design commits to for registry contract
// parameters (e.g. the cycle time of a new CAN message,
// "messages.WheelSpeed.cycle_ms"), so that cross-domain constraints are
// checked before any code exists (ASSERT-XVAL-004). It is optional.
type Specification struct {
	Summary           string              `json:"summary"`
	AffectedModules   []SpecModule        `json:"affected_modules"`
	DesignDecisions   []SpecDecision      `json:"design_decisions"`
	DependencyChanges []SpecDependency    `json:"dependency_changes"`
	Risks             []SpecRisk          `json:"risks"`
	RequiredADRs      []string            `json:"required_adrs"`
	ProposedValues    []SpecProposedValue `json:"proposed_values,omitempty"`
}

// SpecModule is a module the change touches; New marks one that does not
// exist yet.
type SpecModule struct {
	Name string `json:"name"`
	New  bool   `json:"new"`
}

// SpecDecision is one design decision with its rationale.
type SpecDecision struct {
	Decision  string `json:"decision"`
	Rationale string `json:"rationale"`
}

// SpecDependency is a module dependency the change adds or removes.
type SpecDependency struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Change string `json:"change" jsonschema:"enum=add,enum=remove"`
}

// SpecRisk is one risk of the change.
type SpecRisk struct {
	Risk       string `json:"risk"`
	Severity   string `json:"severity"`
	Mitigation string `json:"mitigation"`
}

// SpecProposedValue is a value the design commits to for a registry
// interface parameter; Parameter is a parameter name or, for a field of an
// item of a structured parameter, "<parameter>.<item>.<field>".
type SpecProposedValue struct {
	Interface string  `json:"interface"`
	Parameter string  `json:"parameter"`
	Value     float64 `json:"value"`
}

// ValidateSpecification runs the architecture stage's deterministic
// checks and returns one specific message per problem (none: valid):
//   - every affected module exists in modules or is marked new
//     (ASSERT-ARCH-001/002), naming the missing module;
//   - no added dependency matches a [constraints].forbidden_imports rule
//     (ASSERT-ARCH-003), naming the violated rule;
//   - the proposed values satisfy the registry's contracts and computed
//     constraints (ASSERT-XVAL-004): every blocking finding of
//     xval.ValidateProposal with its interface, parameter, expected and
//     actual values. A nil registry skips this check.
//
// Module names resolve as Modules.Lookup does: after cleaning ("./a/" is
// "a"), the root package by its listed name, "." or the module path, any
// package by its import path. A forbidden-import
// rule matches a module or import path equal to its side, nested under it
// or ending in it on a path-segment boundary (so rule "telemetry" matches
// "telemetry/can" and "example.com/widgets/telemetry", not "telemetry2").
func ValidateSpecification(spec Specification, modules stagekit.Modules, constraints config.Constraints, registry *xval.Registry) []string {
	var problems []string
	if strings.TrimSpace(spec.Summary) == "" {
		problems = append(problems, "summary: must not be empty")
	}
	for i, m := range spec.AffectedModules {
		_, known := modules.Lookup(m.Name)
		switch {
		case strings.TrimSpace(m.Name) == "":
			problems = append(problems, fmt.Sprintf("affected_modules[%d]: empty module name", i))
		case !m.New && !known:
			problems = append(problems, fmt.Sprintf(
				"affected_modules[%d]: module %q does not exist in the repository and is not marked new (existing modules: %s)",
				i, m.Name, strings.Join(modules.Names, ", ")))
		}
	}
	for i, dc := range spec.DependencyChanges {
		if dc.Change != "add" {
			continue
		}
		for _, rule := range constraints.ForbiddenImports {
			if pathMatches(dc.From, rule.From) && pathMatches(dc.To, rule.To) {
				problems = append(problems, fmt.Sprintf(
					"dependency_changes[%d]: adding a dependency from %q to %q violates the architectural constraint forbidden_imports {from = %q, to = %q}",
					i, dc.From, dc.To, rule.From, rule.To))
			}
		}
	}
	if registry != nil && len(spec.ProposedValues) > 0 {
		values := make([]xval.ExtractedValue, len(spec.ProposedValues))
		for i, v := range spec.ProposedValues {
			values[i] = xval.ExtractedValue{Interface: v.Interface, Parameter: v.Parameter, Value: v.Value, Artifact: "specification"}
		}
		for _, f := range xval.ValidateProposal(registry, values) {
			if f.Severity != domain.SeverityBlocking {
				continue
			}
			problems = append(problems, fmt.Sprintf(
				"proposed_values: cross-domain constraint violated on interface %s parameter %s: %s (expected %s, actual %s)",
				f.InterfaceID, f.Parameter, f.Message, f.Expected, f.Actual))
		}
	}
	return problems
}

// pathMatches reports whether module or import path p falls under rule
// (see ValidateSpecification).
func pathMatches(p, rule string) bool {
	p, rule = stagekit.CleanModule(p), stagekit.CleanModule(rule)
	if p == "" || rule == "" {
		return false
	}
	return p == rule || strings.HasPrefix(p, rule+"/") ||
		strings.HasSuffix(p, "/"+rule) || strings.Contains(p, "/"+rule+"/")
}

// RenderSpecification renders the specification of work item n as the
// Markdown document committed on the spec branch.
func RenderSpecification(n int, title string, spec Specification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Specification for #%d: %s\n\n", n, stagekit.OneLine(title))
	b.WriteString("_Generated by CogWorks; it needs human approval before implementation starts._\n\n")
	b.WriteString("## Summary\n\n")
	b.WriteString(strings.TrimSpace(spec.Summary) + "\n\n")
	b.WriteString("## Affected modules\n\n")
	if len(spec.AffectedModules) == 0 {
		b.WriteString("(none)\n\n")
	}
	for _, m := range spec.AffectedModules {
		if m.New {
			fmt.Fprintf(&b, "- `%s` (new)\n", m.Name)
		} else {
			fmt.Fprintf(&b, "- `%s`\n", m.Name)
		}
	}
	if len(spec.AffectedModules) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("## Design decisions\n\n")
	if len(spec.DesignDecisions) == 0 {
		b.WriteString("(none)\n\n")
	}
	for i, dd := range spec.DesignDecisions {
		fmt.Fprintf(&b, "%d. **%s**  \n   %s\n", i+1, stagekit.OneLine(dd.Decision), stagekit.OneLine(dd.Rationale))
	}
	if len(spec.DesignDecisions) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("## Dependency changes\n\n")
	if len(spec.DependencyChanges) == 0 {
		b.WriteString("(none)\n\n")
	} else {
		b.WriteString("| change | from | to |\n|---|---|---|\n")
		for _, dc := range spec.DependencyChanges {
			fmt.Fprintf(&b, "| %s | `%s` | `%s` |\n", dc.Change, stagekit.CellText(dc.From), stagekit.CellText(dc.To))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Risks\n\n")
	if len(spec.Risks) == 0 {
		b.WriteString("(none)\n\n")
	} else {
		b.WriteString("| risk | severity | mitigation |\n|---|---|---|\n")
		for _, r := range spec.Risks {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", stagekit.CellText(r.Risk), stagekit.CellText(r.Severity), stagekit.CellText(r.Mitigation))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Required ADRs\n\n")
	if len(spec.RequiredADRs) == 0 {
		b.WriteString("(none)\n")
	}
	for _, a := range spec.RequiredADRs {
		fmt.Fprintf(&b, "- %s\n", stagekit.OneLine(a))
	}
	if len(spec.ProposedValues) > 0 {
		b.WriteString("\n## Proposed contract values\n\n| interface | parameter | value |\n|---|---|---|\n")
		for _, v := range spec.ProposedValues {
			fmt.Fprintf(&b, "| `%s` | `%s` | %g |\n", stagekit.CellText(v.Interface), stagekit.CellText(v.Parameter), v.Value)
		}
	}
	return b.String()
}
