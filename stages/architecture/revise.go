package architecture

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Revise answers review feedback on the specification PR (issue 28,
// stages/revision): the stage's own `architecture` call runs again with
// the specification as it reads on req.Branch and the reviewers' feedback
// (already quoted as untrusted data), and its answer is checked by
// ValidateSpecification exactly as the first one was, problems fed back
// within the stage's attempts. The result is the re-rendered
// specification; committing it is the caller's. An answer that renders
// the same document changes nothing and says so.
func (x Executor) Revise(ctx context.Context, in engine.StageInput, req stagekit.DesignRequest) (stagekit.DesignRevision, error) {
	n := in.Issue.Number
	path := stagekit.SpecPath(n)
	extra := map[string]any{"Review": req.Feedback}
	cur, err := x.GitHub.GetFile(ctx, in.Repo, path, req.Branch)
	switch {
	case err == nil:
		extra["Current"] = []contextpack.Item{{Path: path, Content: string(cur)}}
	case !errors.Is(err, github.ErrNotFound):
		return stagekit.DesignRevision{}, fmt.Errorf("read the specification of #%d on %s: %w", n, req.Branch, err)
	}
	spec, err := x.generate(ctx, in, extra)
	if err != nil {
		return stagekit.DesignRevision{}, err
	}
	doc := RenderSpecification(n, in.Issue.Title, spec)
	if doc == string(cur) {
		return stagekit.DesignRevision{Reason: "the revised specification reads exactly as the one on the branch"}, nil
	}
	summary := "rewrote the specification"
	if changed := stagekit.ChangedSections(string(cur), doc); len(changed) > 0 {
		summary = "sections changed: " + strings.Join(changed, ", ")
	}
	return stagekit.DesignRevision{Files: map[string]string{path: doc}, Summary: summary}, nil
}
