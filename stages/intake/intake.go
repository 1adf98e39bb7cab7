package intake

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// GitHub is what intake uses: the classification comment.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	idem.CommentAPI
}

// Executor classifies the issue (docs/spec.md §5.1): one `classify` LLM call
// with the issue text and the repository modules, schema- and
// enum-validated (ASSERT-CLASS-001), the safety override from the config's
// safety-critical modules (ASSERT-CLASS-002/003) and the scope threshold
// (ASSERT-CLASS-004). The classification is stored in the snapshot and
// shown in the classification comment even when the scope escalates, so
// humans see why.
type Executor struct {
	Deps   stagekit.Deps
	GitHub GitHub
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d stagekit.Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// Execute implements engine.StageExecutor.
func (x Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	d := x.Deps
	modules, err := d.Modules(ctx)
	if err != nil {
		return engine.StageResult{}, fmt.Errorf("intake of #%d: %w", in.Issue.Number, err)
	}
	gw := d.Gateway(in)
	var raw classify.Classification
	_, err = stagekit.RunAttempts(ctx, in.Stage, stagekit.StageAttempts(in.Config), func(ctx context.Context, feedback string) (string, []string, error) {
		vars := map[string]any{"Title": in.Issue.Title, "Body": in.Issue.Body, "Modules": modules.Names}
		if feedback != "" {
			vars["Feedback"] = feedback
		}
		var c classify.Classification
		if _, err := gw.Structured(ctx, llm.Call{Stage: string(in.Stage), Template: prompts.Classify, Vars: vars}, &c); err != nil {
			return "", nil, err
		}
		if err := classify.Validate(c); err != nil {
			return "the classification failed validation", stagekit.ErrorLines(err), nil
		}
		raw = c
		return "", nil, nil
	})
	if err != nil {
		return engine.StageResult{}, err
	}
	final := classify.Finalize(raw, in.Config.Classification.SafetyCriticalModules)
	// The classification is recorded whatever follows (a failed comment,
	// a scope escalation): it is what this step decided.
	decided := []pipeline.Change{pipeline.SetClassification{Classification: final}}
	scope := classify.CheckScope(final, classify.Thresholds{
		MaxFiles:      in.Config.Classification.MaxScopeFiles,
		MaxInterfaces: in.Config.Classification.MaxScopeInterfaces,
	})
	body := ClassificationComment(final, raw.SafetyAffecting, scope)
	k := stagekit.Key(in.Issue.Number, "classification")
	if _, _, err := idem.UpsertComment(ctx, x.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: in.Issue.Number, Key: k,
		Body: audit.Format(audit.Comment{Key: k, Title: "Classification", Body: body}), Listed: in.Comments}); err != nil {
		return engine.StageResult{Changes: decided}, fmt.Errorf("post the classification of #%d: %w", in.Issue.Number, err)
	}
	if scope != nil {
		return engine.StageResult{Changes: decided}, &escalation.Error{
			Code:     scope.Code,
			Reason:   "estimated scope exceeds the configured threshold: " + scope.Reason,
			Attempts: []escalation.Attempt{{N: 1, Summary: "classification " + string(final.Type), Diagnostics: []string{scope.Reason}}},
		}
	}
	summary := fmt.Sprintf("classified as %s (%s complexity), modules: %s", final.Type,
		final.EstimatedScope.Complexity, orNone(final.AffectedModules))
	if final.SafetyAffecting {
		summary += "; safety-affecting"
	}
	return engine.StageResult{Event: pipeline.EventDone, Summary: summary, Changes: decided}, nil
}

// ClassificationComment renders the classification for humans.
func ClassificationComment(c classify.Classification, llmSafety bool, scope *escalation.Error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Type:** `%s`\n\n", audit.Untrusted(string(c.Type)))
	fmt.Fprintf(&b, "**Affected modules:** %s\n\n", codeList(c.AffectedModules))
	fmt.Fprintf(&b, "**Estimated scope:** %d files, %d interfaces, %s complexity\n\n",
		c.EstimatedScope.Files, c.EstimatedScope.Interfaces, stagekit.OneLine(c.EstimatedScope.Complexity))
	switch {
	case c.SafetyAffecting && !llmSafety:
		b.WriteString("**Safety-affecting:** yes — an affected module is listed in `safety_critical_modules`; code-producing gates need a human\n\n")
	case c.SafetyAffecting:
		b.WriteString("**Safety-affecting:** yes; code-producing gates need a human\n\n")
	default:
		b.WriteString("**Safety-affecting:** no\n\n")
	}
	b.WriteString("**Rationale:**\n\n")
	for _, line := range strings.Split(strings.TrimSpace(c.Rationale), "\n") {
		b.WriteString("> " + audit.Untrusted(line) + "\n")
	}
	if scope != nil {
		fmt.Fprintf(&b, "\n**Escalated to humans:** %s. Split the issue or raise the threshold in `.cogworks/config.toml`, then add `cogworks:retry`.\n", stagekit.OneLine(scope.Reason))
	}
	return b.String()
}

func codeList(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = "`" + audit.Untrusted(strings.ReplaceAll(s, "`", "'")) + "`"
	}
	return strings.Join(quoted, ", ")
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}
