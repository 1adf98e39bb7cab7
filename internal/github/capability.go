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
	OpWriteReactions     Operation = "reactions.write"
	OpWritePull          Operation = "pulls.write"
	OpWriteGit           Operation = "git.write"
	OpWriteSubIssues     Operation = "sub_issues.write"
	OpWriteRepoLabels    Operation = "repo.labels.write"
	OpDeleteBranch       Operation = "git.refs.delete"
	OpWriteProtectedPath Operation = "git.write.protected_path"
	// OpRerunFailedJobs re-runs the failed jobs of a workflow run (POST
	// actions/runs/{id}/rerun-failed-jobs): CI feedback's one re-run of
	// a run that failed on the infrastructure, not the code. It is the
	// only Actions write CogWorks makes.
	OpRerunFailedJobs Operation = "actions.runs.rerun_failed_jobs"
)

// OpCloseObsoleteSubIssue closes, as not planned, a sub-issue CogWorks
// opened itself under the work item whose approved amended plan made it
// obsolete. It is the one close CogWorks performs; CloseObsoleteSubIssue
// checks both conditions through the API.
const OpCloseObsoleteSubIssue Operation = "sub_issues.close_obsolete"

// Manifest is a SASS capability manifest: explicit allow and deny lists.
// Deny wins; anything not allowed is denied.
type Manifest struct {
	Allow []Operation
	Deny  []Operation
}

// DefaultManifest is what CogWorks runs with: it may write issues,
// labels, comments, reactions, branches, PRs and comment-only reviews,
// close an obsolete sub-issue of its own (OpCloseObsoleteSubIssue) and
// re-run the failed jobs of a workflow run (OpRerunFailedJobs); it may
// never merge, approve, request changes, close any other issue or a PR,
// or delete.
func DefaultManifest() Manifest {
	return Manifest{
		Allow: []Operation{OpCommentReview, OpWriteIssue, OpWriteLabels, OpWriteComments, OpWriteReactions,
			OpWritePull, OpWriteGit, OpWriteSubIssues, OpWriteRepoLabels, OpCloseObsoleteSubIssue, OpRerunFailedJobs},
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

// Validate reports an error when the manifest allows an operation that
// CogWorks must never perform, whatever the configuration says (docs/spec.md §11,
// §13): merging, approving, requesting changes, closing a PR or an issue
// (the narrow OpCloseObsoleteSubIssue aside), or writing the human-authored
// interface and scenario directories.
func (m Manifest) Validate() error {
	alwaysDenied := []Operation{OpMergePull, OpApprovePull, OpRequestChanges,
		OpClosePull, OpCloseIssue, OpWriteProtectedPath}
	for _, op := range alwaysDenied {
		if m.Check(op) == nil {
			return fmt.Errorf("capability manifest allows %s, which CogWorks must never perform", op)
		}
	}
	return nil
}

// DeniedError is returned, before any request is sent, for an operation
// the capability manifest does not allow.
type DeniedError struct {
	Operation Operation
	// Detail names what was refused (a path, a PR number); optional.
	Detail string
}

// Error implements error.
func (e *DeniedError) Error() string {
	msg := fmt.Sprintf("capability %s is denied by the CogWorks manifest", e.Operation)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	switch e.Operation {
	case OpMergePull, OpApprovePull, OpRequestChanges, OpClosePull, OpCloseIssue:
		msg += ": CogWorks never merges, approves, requests changes on or closes issues and PRs (only an obsolete sub-issue of its own)"
	case OpCloseObsoleteSubIssue:
		msg += ": CogWorks closes only an open sub-issue it opened itself under the work item being re-planned"
	case OpWriteProtectedPath:
		msg += ": .cogworks/interfaces/ and .cogworks/scenarios/ are human-authored and never written by CogWorks"
	}
	return msg
}
