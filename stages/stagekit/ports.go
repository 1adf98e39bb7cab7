package stagekit

import (
	"context"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/github"
)

// The GitHub ports of the stage executors. Each executor declares the port
// it uses, composed from small interfaces (idem's write ports and the read
// ports below), as prow declares one client interface per plugin; GitHub
// is only their union, what Deps carries and *github.Client implements.

// repoInfoReader reads repository metadata (the default branch).
type repoInfoReader interface {
	GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
}

// FileReader reads one file at a ref.
type FileReader interface {
	GetFile(ctx context.Context, repo github.Repo, path, ref string) ([]byte, error)
}

// issueReader reads one issue.
type issueReader interface {
	GetIssue(ctx context.Context, repo github.Repo, number int) (github.Issue, error)
}

// subIssueAPI lists and links GitHub sub-issues.
type subIssueAPI interface {
	ListSubIssues(ctx context.Context, repo github.Repo, parent int) ([]github.Issue, error)
	AddSubIssue(ctx context.Context, repo github.Repo, parent int, childID int64) error
}

// reviewAPI posts review comments on a PR (never approvals).
type reviewAPI interface {
	CreateReview(ctx context.Context, repo github.Repo, number int, r github.NewReview) (github.Review, error)
	ListReviewComments(ctx context.Context, repo github.Repo, number int) ([]github.InlineComment, error)
	ListReviews(ctx context.Context, repo github.Repo, number int) ([]github.Review, error)
	ListPullFiles(ctx context.Context, repo github.Repo, number int) ([]github.PullFile, error)
}

// specReader reads a work item's specification (ReadSpec): from its
// branch, else from the default branch.
type specReader interface {
	repoInfoReader
	FileReader
}

// labelSetter replaces an issue's labels in one request.
type labelSetter interface {
	SetLabels(ctx context.Context, repo github.Repo, number int, labels []string) ([]string, error)
}

// branchSHAReader reads the SHA a branch points at.
type branchSHAReader interface {
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
}

// swiStatusWriter moves a sub-work-item's status label (SetSWIStatus).
type swiStatusWriter interface {
	issueReader
	labelSetter
}

// codeReader reads what a sub-work-item builds on: the interface branch,
// the interface list and its dependencies' files (LoadSWISources).
type codeReader interface {
	repoInfoReader
	RepoReader
	pullLister
}

// IntakeGitHub is what intake uses: the classification comment.
type IntakeGitHub interface {
	idem.CommentAPI
}

// ArchitectureGitHub is what architecture uses: the spec branch and PR.
type ArchitectureGitHub interface {
	specReader
	idem.GitAPI
	idem.PullAPI
}

// InterfaceGitHub is what interface design uses: the spec, the interface
// branch and PR.
type InterfaceGitHub interface {
	specReader
	idem.GitAPI
	idem.PullAPI
}

// PlanningGitHub is what planning uses: the spec and interface list, the
// plan comment, the sub-issues and their labels.
type PlanningGitHub interface {
	specReader
	pullLister
	idem.CommentAPI
	idem.IssueAPI
	idem.LabelAPI
	subIssueAPI
}

// CodeGenGitHub is what code generation uses: the plan item, the code the
// SWI builds on, its status label and its branch.
type CodeGenGitHub interface {
	codeReader
	swiStatusWriter
	idem.GitAPI
}

// ScenarioGitHub is what scenario validation uses: the plan item, the code
// under test and the results comment.
type ScenarioGitHub interface {
	codeReader
	issueReader
	idem.CommentAPI
}

// ReviewGitHub is what review uses: the SWI's issue and files, the spec
// and the summary comment.
type ReviewGitHub interface {
	issueReader
	specReader
	idem.CommentAPI
}

// IntegrationGitHub is what integration uses: the SWI's issue and files,
// its PR with inline findings, its status label and the summary comment.
type IntegrationGitHub interface {
	swiStatusWriter
	FileReader
	branchSHAReader
	idem.PullAPI
	idem.CommentAPI
	reviewAPI
}

// GitHub is what the stage executors need from GitHub together (a subset
// of *github.Client); each executor sees only its own port.
type GitHub interface {
	IntakeGitHub
	ArchitectureGitHub
	InterfaceGitHub
	PlanningGitHub
	CodeGenGitHub
	ScenarioGitHub
	ReviewGitHub
	IntegrationGitHub
}

// pullLister is what findPullByHead needs from GitHub.
type pullLister interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
}
