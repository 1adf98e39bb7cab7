package stages

import (
	"context"
	"log/slog"
	"time"

	"github.com/cogworks/cogworks/contextpack"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/engine"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/scenario"
	"github.com/cogworks/cogworks/xval"
)

// GitHub is what the stage executors need from GitHub (a subset of
// *github.Client).
type GitHub interface {
	GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
	GetIssue(ctx context.Context, repo github.Repo, number int) (github.Issue, error)
	ListIssues(ctx context.Context, repo github.Repo, f github.IssueFilter) ([]github.Issue, error)
	CreateIssue(ctx context.Context, repo github.Repo, i github.NewIssue) (github.Issue, error)
	UpdateIssue(ctx context.Context, repo github.Repo, number int, u github.IssueUpdate) (github.Issue, error)
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
	EditComment(ctx context.Context, repo github.Repo, id int64, body string) (github.Comment, error)
	AddLabels(ctx context.Context, repo github.Repo, number int, labels ...string) error
	SetLabels(ctx context.Context, repo github.Repo, number int, labels []string) ([]string, error)
	RemoveLabel(ctx context.Context, repo github.Repo, number int, label string) error
	ListRepoLabels(ctx context.Context, repo github.Repo) ([]github.Label, error)
	CreateRepoLabel(ctx context.Context, repo github.Repo, label github.Label) error
	AddSubIssue(ctx context.Context, repo github.Repo, parent int, childID int64) error
	ListSubIssues(ctx context.Context, repo github.Repo, parent int) ([]github.Issue, error)
	CreatePull(ctx context.Context, repo github.Repo, p github.NewPull) (github.PullRequest, error)
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
	GetPull(ctx context.Context, repo github.Repo, number int) (github.PullRequest, error)
	CreateReview(ctx context.Context, repo github.Repo, number int, r github.NewReview) (github.Review, error)
	ListReviewComments(ctx context.Context, repo github.Repo, number int) ([]github.InlineComment, error)
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
	GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error)
	CreateBranch(ctx context.Context, repo github.Repo, branch, sha string) error
	UpdateBranch(ctx context.Context, repo github.Repo, branch, sha string, force bool) error
	GetCommit(ctx context.Context, repo github.Repo, sha string) (github.Commit, error)
	GetTree(ctx context.Context, repo github.Repo, treeSHA string, recursive bool) ([]github.TreeEntry, error)
	CreateTree(ctx context.Context, repo github.Repo, baseTree string, entries []github.TreeEntry) (string, error)
	CreateCommit(ctx context.Context, repo github.Repo, message, tree string, parents []string) (github.Commit, error)
	GetFile(ctx context.Context, repo github.Repo, path, ref string) ([]byte, error)
}

// Domain is what the executors need from the primary domain service
// (*domain.Client implements it).
type Domain interface {
	Validate(ctx context.Context, req domain.Request) (domain.DiagnosticsResult, error)
	Normalise(ctx context.Context, req domain.Request) (domain.NormaliseResult, error)
	ReviewRules(ctx context.Context, req domain.Request, p domain.ReviewRulesParams) (domain.DiagnosticsResult, error)
	Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error)
	ExtractInterfaces(ctx context.Context, req domain.Request) (domain.ExtractResult, error)
}

// Deps are the ports and settings every executor shares. Workspace is a
// local checkout of the target repository's default branch (the Action's
// GITHUB_WORKSPACE); it is the source of repo modules, ADRs, the interface
// registry and scenarios, and the path the domain service overlays
// artifacts on.
type Deps struct {
	GitHub    GitHub
	LLM       *llm.Gateway
	Domain    Domain
	Workspace string
	Repo      contextpack.Repository
	Registry  *xval.Registry
	// Services are the handshakes of registered domain services (for
	// cross-domain checks); Warnings are availability warnings to surface
	// in PRs and the audit trail (ASSERT-EXT-002).
	Services []xval.ServiceInfo
	Warnings []string
	// Scenarios are loaded from the workspace (holdout: never given to
	// code generation).
	Scenarios []scenario.Scenario
	Twins     scenario.Twins
	Clock     func() time.Time
	Logger    *slog.Logger
}

// Executors returns an executor for every non-terminal stage.
func Executors(d Deps) map[pipeline.Stage]engine.StageExecutor {
	m := map[pipeline.Stage]engine.StageExecutor{}
	for _, part := range []map[pipeline.Stage]engine.StageExecutor{firstHalf(d), buildHalf(d), shipHalf(d)} {
		for stage, ex := range part {
			m[stage] = ex
		}
	}
	return m
}
