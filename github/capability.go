package github

import "fmt"

// Operation names a GitHub write capability.
type Operation string

// Operations the manifest knows about. Denied ones are listed in
// DefaultManifest.
const (
	OpMergePull          Operation = "pulls.merge"
	OpApprovePull        Operation = "pulls.review.approve"
	OpRequestChanges     Operation = "pulls.review.request_changes"
	OpClosePull          Operation = "pulls.close"
	OpCloseIssue         Operation = "issues.close"
	OpCommentReview      Operation = "pulls.review.comment"
	OpWriteIssue         Operation = "issues.write"
	OpWriteLabels        Operation = "labels.write"
	OpWriteComments      Operation = "comments.write"
	OpWritePull          Operation = "pulls.write"
	OpWriteGit           Operation = "git.write"
	OpWriteSubIssues     Operation = "sub_issues.write"
	OpWriteRepoLabels    Operation = "repo.labels.write"
	OpDeleteBranch       Operation = "git.refs.delete"
	OpWriteProtectedPath Operation = "git.write.protected_path"
)

// Manifest is a SASS capability manifest: explicit allow and deny lists.
// Deny wins; anything not allowed is denied.
type Manifest struct {
	Allow []Operation
	Deny  []Operation
}

// DefaultManifest is what CogWorks runs with: it may write issues,
// labels, comments, branches, PRs and comment-only reviews, and may never
// merge, approve, request changes, close or delete.
func DefaultManifest() Manifest {
	return Manifest{
		Allow: []Operation{OpCommentReview, OpWriteIssue, OpWriteLabels, OpWriteComments,
			OpWritePull, OpWriteGit, OpWriteSubIssues, OpWriteRepoLabels},
		Deny: []Operation{OpMergePull, OpApprovePull, OpRequestChanges, OpClosePull,
			OpCloseIssue, OpDeleteBranch, OpWriteProtectedPath},
	}
}

// Check returns a *DeniedError unless op is allowed.
func (m Manifest) Check(op Operation) error {
	for _, d := range m.Deny {
		if d == op {
			return &DeniedError{Operation: op}
		}
	}
	for _, a := range m.Allow {
		if a == op {
			return nil
		}
	}
	return &DeniedError{Operation: op}
}

// DeniedError is returned, before any request is sent, for an operation
// the capability manifest does not allow.
type DeniedError struct {
	Operation Operation
}

func (e *DeniedError) Error() string {
	return fmt.Sprintf("capability %s is denied by the CogWorks manifest: CogWorks never merges, approves, requests changes on or closes issues and PRs", e.Operation)
}
