package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// CreatePull opens a PR. When an open PR already exists for the head the
// error wraps ErrUnprocessable.
func (c *Client) CreatePull(ctx context.Context, repo Repo, in NewPull) (PullRequest, error) {
	if err := c.manifest.Check(OpWritePull); err != nil {
		return PullRequest{}, err
	}
	in.Title, in.Body = c.redact(in.Title), c.redact(in.Body)
	req := &gh.NewPullRequest{Title: &in.Title, Body: capBodyPtr(&in.Body), Head: &in.Head, Base: &in.Base, Draft: &in.Draft}
	pr, _, err := c.gh.PullRequests.Create(ctx, repo.Owner, repo.Name, req)
	if err != nil {
		return PullRequest{}, actionsRefusal(repo, convertError(fmt.Sprintf("open PR %s→%s in %s", in.Head, in.Base, repo), err))
	}
	return toPull(pr), nil
}

// ListPulls returns every PR matching f. A bare head branch is qualified
// with the repository owner ("owner:branch") as GitHub requires.
func (c *Client) ListPulls(ctx context.Context, repo Repo, f PullFilter) ([]PullRequest, error) {
	head := f.Head
	if head != "" && !strings.Contains(head, ":") {
		head = repo.Owner + ":" + head
	}
	prs, err := paginate(func(lo gh.ListOptions) ([]*gh.PullRequest, *gh.Response, error) {
		return c.gh.PullRequests.List(ctx, repo.Owner, repo.Name,
			&gh.PullRequestListOptions{State: f.State, Head: head, Base: f.Base, ListOptions: lo})
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list PRs of %s", repo), err)
	}
	return mapSlice(prs, toPull), nil
}

// GetPull returns one PR.
func (c *Client) GetPull(ctx context.Context, repo Repo, number int) (PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, repo.Owner, repo.Name, number)
	if err != nil {
		return PullRequest{}, convertError(fmt.Sprintf("get PR %s#%d", repo, number), err)
	}
	return toPull(pr), nil
}

// reviewOperation maps a review event onto the capability it needs.
func reviewOperation(ev ReviewEvent) (Operation, error) {
	switch ev {
	case ReviewComment:
		return OpCommentReview, nil
	case ReviewApprove:
		return OpApprovePull, nil
	case ReviewRequestChanges:
		return OpRequestChanges, nil
	}
	return "", fmt.Errorf("review event %q: want COMMENT, APPROVE or REQUEST_CHANGES", ev)
}

// CreateReview submits a review with inline comments. Only COMMENT reviews
// are allowed; APPROVE and REQUEST_CHANGES fail with *DeniedError before
// any request is sent.
func (c *Client) CreateReview(ctx context.Context, repo Repo, number int, in NewReview) (Review, error) {
	op, err := reviewOperation(in.Event)
	if err != nil {
		return Review{}, fmt.Errorf("review %s#%d: %w", repo, number, err)
	}
	if op != OpCommentReview {
		return Review{}, c.deny(op, fmt.Sprintf("%s#%d", repo, number))
	}
	if err := c.manifest.Check(op); err != nil {
		return Review{}, err
	}
	event, body := string(in.Event), c.redact(in.Body)
	req := &gh.PullRequestReviewRequest{Event: &event, Body: capBodyPtr(&body)}
	if in.CommitID != "" {
		req.CommitID = &in.CommitID
	}
	for _, ic := range in.Comments {
		req.Comments = append(req.Comments, &gh.DraftReviewComment{
			Path: gh.String(ic.Path), Line: gh.Int(ic.Line), Side: gh.String("RIGHT"), Body: capBodyPtr(gh.String(c.redact(ic.Body)))})
	}
	r, _, err := c.gh.PullRequests.CreateReview(ctx, repo.Owner, repo.Name, number, req)
	if err != nil {
		return Review{}, convertError(fmt.Sprintf("review %s#%d", repo, number), err)
	}
	return Review{ID: r.GetID(), State: r.GetState(), Body: r.GetBody(), User: r.GetUser().GetLogin()}, nil
}

// ListReviewComments returns every inline review comment on a PR.
func (c *Client) ListReviewComments(ctx context.Context, repo Repo, number int) ([]InlineComment, error) {
	comments, err := paginate(func(lo gh.ListOptions) ([]*gh.PullRequestComment, *gh.Response, error) {
		return c.gh.PullRequests.ListComments(ctx, repo.Owner, repo.Name, number,
			&gh.PullRequestListCommentsOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list review comments of %s#%d", repo, number), err)
	}
	return mapSlice(comments, toInline), nil
}

func toInline(cm *gh.PullRequestComment) InlineComment {
	line := cm.GetLine()
	if line == 0 {
		line = cm.GetOriginalLine()
	}
	return InlineComment{Path: cm.GetPath(), Line: line, Body: cm.GetBody(), User: cm.GetUser().GetLogin(),
		ID: cm.GetID(), ReviewID: cm.GetPullRequestReviewID(), InReplyTo: cm.GetInReplyTo(),
		DiffHunk: cm.GetDiffHunk(), UserType: cm.GetUser().GetType()}
}

// ReplyToReviewComment answers inline comment commentID of PR number in
// its thread (POST pulls/{n}/comments/{id}/replies), a comment-only
// review write.
func (c *Client) ReplyToReviewComment(ctx context.Context, repo Repo, number int, commentID int64, body string) (InlineComment, error) {
	if err := c.manifest.Check(OpCommentReview); err != nil {
		return InlineComment{}, err
	}
	body = c.redact(body)
	// go-github has only the legacy in_reply_to form of this write.
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", repo.Owner, repo.Name, number, commentID)
	req, err := c.gh.NewRequest(http.MethodPost, u, map[string]string{"body": *capBodyPtr(&body)})
	if err != nil {
		return InlineComment{}, fmt.Errorf("reply to review comment %d of %s#%d: %w", commentID, repo, number, err)
	}
	out := &gh.PullRequestComment{}
	if _, err := c.gh.Do(ctx, req, out); err != nil {
		return InlineComment{}, convertError(fmt.Sprintf("reply to review comment %d of %s#%d", commentID, repo, number), err)
	}
	return toInline(out), nil
}

// MergePull always fails with *DeniedError: CogWorks never merges
// (ASSERT-INT-003).
func (c *Client) MergePull(_ context.Context, repo Repo, number int) error {
	return c.deny(OpMergePull, fmt.Sprintf("%s#%d", repo, number))
}

// ClosePull always fails with *DeniedError: CogWorks never closes PRs.
func (c *Client) ClosePull(_ context.Context, repo Repo, number int) error {
	return c.deny(OpClosePull, fmt.Sprintf("%s#%d", repo, number))
}

func toPull(pr *gh.PullRequest) PullRequest {
	return PullRequest{
		ID: pr.GetID(), Number: pr.GetNumber(), Title: pr.GetTitle(), Body: pr.GetBody(),
		State: pr.GetState(), Head: pr.GetHead().GetRef(), HeadSHA: pr.GetHead().GetSHA(),
		Base: pr.GetBase().GetRef(), Draft: pr.GetDraft(), Merged: pr.GetMerged() || pr.MergedAt != nil,
		MergedBy: pr.GetMergedBy().GetLogin(), HTMLURL: pr.GetHTMLURL(), User: pr.GetUser().GetLogin(),
	}
}
