package stagekit

import (
	"context"

	"github.com/cogworks/cogworks/internal/github"
)

// The GitHub read ports of the stage executors. Each stage package
// declares the port it uses (its GitHub interface), composed from small
// interfaces (idem's write ports and the read ports below), as prow
// declares one client interface per plugin; stages.GitHub is only their
// union, what internal/cmd/factory hands to stages.Executors.

// RepoInfoReader reads repository metadata (the default branch).
type RepoInfoReader interface {
	GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
}

// FileReader reads one file at a ref.
type FileReader interface {
	GetFile(ctx context.Context, repo github.Repo, path, ref string) ([]byte, error)
}

// IssueReader reads one issue.
type IssueReader interface {
	GetIssue(ctx context.Context, repo github.Repo, number int) (github.Issue, error)
}

// SubIssueAPI lists and links GitHub sub-issues.
type SubIssueAPI interface {
	ListSubIssues(ctx context.Context, repo github.Repo, parent int) ([]github.Issue, error)
	AddSubIssue(ctx context.Context, repo github.Repo, parent int, childID int64) error
}

// ReviewAPI posts review comments on a PR (never approvals).
type ReviewAPI interface {
	CreateReview(ctx context.Context, repo github.Repo, number int, r github.NewReview) (github.Review, error)
	ListReviewComments(ctx context.Context, repo github.Repo, number int) ([]github.InlineComment, error)
	ListReviews(ctx context.Context, repo github.Repo, number int) ([]github.Review, error)
	ListPullFiles(ctx context.Context, repo github.Repo, number int) ([]github.PullFile, error)
}

// SpecReader reads a work item's specification (ReadSpec): from its
// branch, else from the default branch.
type SpecReader interface {
	RepoInfoReader
	FileReader
}

// LabelSetter replaces an issue's labels in one request.
type LabelSetter interface {
	SetLabels(ctx context.Context, repo github.Repo, number int, labels []string) ([]string, error)
}

// BranchSHAReader reads the SHA a branch points at.
type BranchSHAReader interface {
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
}

// SWIStatusWriter moves a sub-work-item's status label (SetSWIStatus).
type SWIStatusWriter interface {
	IssueReader
	LabelSetter
}

// CodeReader reads what a sub-work-item builds on: the interface branch,
// the interface list and its dependencies' files (LoadSWISources).
type CodeReader interface {
	RepoInfoReader
	RepoReader
	PullLister
}

// PullLister is what findPullByHead needs from GitHub.
type PullLister interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
}
