package classify

// Type is the kind of change an issue asks for.
type Type string

// Classification types (docs/spec.md §5.1).
const (
	TypeFeature          Type = "feature"
	TypeBugFix           Type = "bug_fix"
	TypeRefactor         Type = "refactor"
	TypeConfigChange     Type = "config_change"
	TypeDocumentation    Type = "documentation"
	TypeDependencyUpdate Type = "dependency_update"
)

// Scope is the LLM's estimate of how large the change is.
type Scope struct {
	Files      int    `json:"files" jsonschema:"minimum=0"`
	Interfaces int    `json:"interfaces" jsonschema:"minimum=0"`
	Complexity string `json:"complexity" jsonschema:"enum=low,enum=medium,enum=high"`
}

// Classification is the intake stage's structured LLM output and, after
// post-processing, the final classification stored in the snapshot.
type Classification struct {
	Type            Type     `json:"type" jsonschema:"enum=feature,enum=bug_fix,enum=refactor,enum=config_change,enum=documentation,enum=dependency_update"`
	AffectedModules []string `json:"affected_modules"`
	EstimatedScope  Scope    `json:"estimated_scope"`
	SafetyAffecting bool     `json:"safety_affecting"`
	Rationale       string   `json:"rationale"`
}
