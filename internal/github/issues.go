package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// GetRepo returns the repository's full name and default branch. The
// answer is remembered for repoInfoTTL: stages ask for the default branch
// many times per run, and it practically never changes.
func (c *Client) GetRepo(ctx context.Context, repo Repo) (RepoInfo, error) {
	if info, ok := c.repos.get(repo); ok {
		return info, nil
	}
	r, _, err := c.gh.Repositories.Get(ctx, repo.Owner, repo.Name)
	if err != nil {
		return RepoInfo{}, convertError(fmt.Sprintf("get repository %s", repo), err)
	}
	info := RepoInfo{FullName: r.GetFullName(), DefaultBranch: r.GetDefaultBranch()}
	c.repos.put(repo, info)
	return info, nil
}

// GetIssue returns one issue (or the issue view of a PR).
func (c *Client) GetIssue(ctx context.Context, repo Repo, number int) (Issue, error) {
	i, _, err := c.gh.Issues.Get(ctx, repo.Owner, repo.Name, number)
	if err != nil {
		return Issue{}, convertError(fmt.Sprintf("get issue %s#%d", repo, number), err)
	}
	return toIssue(i), nil
}

// ListIssues returns every issue (and PR) matching f, across all pages.
func (c *Client) ListIssues(ctx context.Context, repo Repo, f IssueFilter) ([]Issue, error) {
	issues, err := paginate(func(lo gh.ListOptions) ([]*gh.Issue, *gh.Response, error) {
		return c.gh.Issues.ListByRepo(ctx, repo.Owner, repo.Name,
			&gh.IssueListByRepoOptions{State: f.State, Labels: f.Labels, ListOptions: lo})
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list issues of %s", repo), err)
	}
	return mapSlice(issues, toIssue), nil
}

// SearchIssues runs an issue search query, across all pages (GitHub caps
// search results at 1000). A search GitHub cut short (it timed out and
// says "incomplete_results": true) is run once more; if it is still
// incomplete, the issues found come with an error wrapping
// ErrIncompleteSearch, so the caller decides whether a partial list will
// do.
func (c *Client) SearchIssues(ctx context.Context, query string) ([]Issue, error) {
	var issues []Issue
	for range 2 {
		incomplete := false
		found, err := paginate(func(lo gh.ListOptions) ([]*gh.Issue, *gh.Response, error) {
			res, resp, err := c.gh.Search.Issues(ctx, query, &gh.SearchOptions{ListOptions: lo})
			if err != nil {
				return nil, resp, err
			}
			incomplete = incomplete || res.GetIncompleteResults()
			return res.Issues, resp, nil
		})
		if err != nil {
			return nil, convertError(fmt.Sprintf("search issues %q", query), err)
		}
		issues = mapSlice(found, toIssue)
		if !incomplete {
			return issues, nil
		}
	}
	return issues, fmt.Errorf("search issues %q: %w", query, ErrIncompleteSearch)
}

// CreateIssue opens an issue.
func (c *Client) CreateIssue(ctx context.Context, repo Repo, in NewIssue) (Issue, error) {
	if err := c.manifest.Check(OpWriteIssue); err != nil {
		return Issue{}, err
	}
	in.Title = c.redact(in.Title)
	req := &gh.IssueRequest{Title: &in.Title, Body: capBodyPtr(c.redactPtr(&in.Body))}
	if len(in.Labels) > 0 {
		req.Labels = &in.Labels
	}
	i, _, err := c.gh.Issues.Create(ctx, repo.Owner, repo.Name, req)
	if err != nil {
		return Issue{}, convertError(fmt.Sprintf("create issue %q in %s", in.Title, repo), err)
	}
	return toIssue(i), nil
}

// UpdateIssue edits an issue's title, body or labels.
func (c *Client) UpdateIssue(ctx context.Context, repo Repo, number int, u IssueUpdate) (Issue, error) {
	if err := c.manifest.Check(OpWriteIssue); err != nil {
		return Issue{}, err
	}
	req := &gh.IssueRequest{Title: c.redactPtr(u.Title), Body: capBodyPtr(c.redactPtr(u.Body)), Labels: u.Labels}
	i, _, err := c.gh.Issues.Edit(ctx, repo.Owner, repo.Name, number, req)
	if err != nil {
		return Issue{}, convertError(fmt.Sprintf("update issue %s#%d", repo, number), err)
	}
	return toIssue(i), nil
}

// CloseIssue always fails with *DeniedError: CogWorks never closes issues.
func (c *Client) CloseIssue(_ context.Context, repo Repo, number int) error {
	return c.deny(OpCloseIssue, fmt.Sprintf("%s#%d", repo, number))
}

// ListComments returns every comment on an issue or PR conversation.
func (c *Client) ListComments(ctx context.Context, repo Repo, number int) ([]Comment, error) {
	comments, err := paginate(func(lo gh.ListOptions) ([]*gh.IssueComment, *gh.Response, error) {
		return c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, number, &gh.IssueListCommentsOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list comments of %s#%d", repo, number), err)
	}
	return mapSlice(comments, toComment), nil
}

// CreateComment posts a comment on an issue or PR.
func (c *Client) CreateComment(ctx context.Context, repo Repo, number int, body string) (Comment, error) {
	if err := c.manifest.Check(OpWriteComments); err != nil {
		return Comment{}, err
	}
	body = c.redact(body)
	cm, _, err := c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, number, &gh.IssueComment{Body: capBodyPtr(&body)})
	if err != nil {
		return Comment{}, convertError(fmt.Sprintf("comment on %s#%d", repo, number), err)
	}
	return toComment(cm), nil
}

// EditComment replaces a comment's body.
func (c *Client) EditComment(ctx context.Context, repo Repo, commentID int64, body string) (Comment, error) {
	if err := c.manifest.Check(OpWriteComments); err != nil {
		return Comment{}, err
	}
	body = c.redact(body)
	cm, _, err := c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, commentID, &gh.IssueComment{Body: capBodyPtr(&body)})
	if err != nil {
		return Comment{}, convertError(fmt.Sprintf("edit comment %d in %s", commentID, repo), err)
	}
	return toComment(cm), nil
}

// DeleteComment deletes a comment.
func (c *Client) DeleteComment(ctx context.Context, repo Repo, commentID int64) error {
	if err := c.manifest.Check(OpWriteComments); err != nil {
		return err
	}
	_, err := c.gh.Issues.DeleteComment(ctx, repo.Owner, repo.Name, commentID)
	return convertError(fmt.Sprintf("delete comment %d in %s", commentID, repo), err)
}

// Reactions CogWorks uses to acknowledge a comment command.
const (
	ReactionEyes     = "eyes"
	ReactionPlusOne  = "+1"
	ReactionConfused = "confused"
)

// CreateReaction adds a reaction (eyes, +1, confused, ...) to an issue
// comment. GitHub answers an existing reaction of the same user and
// content with that reaction, so this is idempotent.
func (c *Client) CreateReaction(ctx context.Context, repo Repo, commentID int64, content string) error {
	if err := c.manifest.Check(OpWriteReactions); err != nil {
		return err
	}
	_, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, repo.Owner, repo.Name, commentID, content)
	return convertError(fmt.Sprintf("react %s to comment %d in %s", content, commentID, repo), err)
}

// labelsBody is the body of the add- and set-labels requests in the
// form GitHub's OpenAPI description states ({"labels": [...]}, at least
// one). go-github v62 sends a bare array, which GitHub's description does
// not list (docs/github-conformance.md).
type labelsBody struct {
	Labels []string `json:"labels"`
}

// AddLabels adds labels to an issue or PR.
func (c *Client) AddLabels(ctx context.Context, repo Repo, number int, labels ...string) error {
	if err := c.manifest.Check(OpWriteLabels); err != nil {
		return err
	}
	what := fmt.Sprintf("add labels %q to %s#%d", labels, repo, number)
	if len(labels) == 0 {
		return nil
	}
	req, err := c.gh.NewRequest(http.MethodPost, issueLabelsURL(repo, number), labelsBody{Labels: labels})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = c.gh.Do(ctx, req, nil)
	return convertError(what, err)
}

// SetLabels replaces the issue's labels with labels in one request and
// returns the labels the issue carries afterwards. No labels is GitHub's
// "remove all labels" (DELETE): its description refuses an empty list.
func (c *Client) SetLabels(ctx context.Context, repo Repo, number int, labels []string) ([]string, error) {
	if err := c.manifest.Check(OpWriteLabels); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("set labels of %s#%d", repo, number)
	if len(labels) == 0 {
		req, err := c.gh.NewRequest(http.MethodDelete, issueLabelsURL(repo, number), nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if _, err := c.gh.Do(ctx, req, nil); err != nil {
			return nil, convertError(what, err)
		}
		return []string{}, nil
	}
	req, err := c.gh.NewRequest(http.MethodPut, issueLabelsURL(repo, number), labelsBody{Labels: labels})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var got []*gh.Label
	if _, err := c.gh.Do(ctx, req, &got); err != nil {
		return nil, convertError(what, err)
	}
	names := make([]string, 0, len(got))
	for _, l := range got {
		names = append(names, l.GetName())
	}
	return names, nil
}

func issueLabelsURL(repo Repo, number int) string {
	return fmt.Sprintf("repos/%s/%s/issues/%d/labels", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), number)
}

// RemoveLabel removes a label; a label the issue does not carry yields an
// error wrapping ErrNotFound.
func (c *Client) RemoveLabel(ctx context.Context, repo Repo, number int, label string) error {
	if err := c.manifest.Check(OpWriteLabels); err != nil {
		return err
	}
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, repo.Owner, repo.Name, number, label)
	return convertError(fmt.Sprintf("remove label %q from %s#%d", label, repo, number), err)
}

// ListRepoLabels returns every label defined in the repository.
func (c *Client) ListRepoLabels(ctx context.Context, repo Repo) ([]Label, error) {
	labels, err := paginate(func(lo gh.ListOptions) ([]*gh.Label, *gh.Response, error) {
		return c.gh.Issues.ListLabels(ctx, repo.Owner, repo.Name, &lo)
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list labels of %s", repo), err)
	}
	return mapSlice(labels, func(l *gh.Label) Label {
		return Label{Name: l.GetName(), Color: l.GetColor(), Description: l.GetDescription()}
	}), nil
}

// CreateRepoLabel defines a label; an existing one yields an error
// wrapping ErrUnprocessable.
func (c *Client) CreateRepoLabel(ctx context.Context, repo Repo, l Label) error {
	if err := c.manifest.Check(OpWriteRepoLabels); err != nil {
		return err
	}
	req := &gh.Label{Name: &l.Name, Color: &l.Color}
	if l.Description != "" {
		req.Description = &l.Description
	}
	_, _, err := c.gh.Issues.CreateLabel(ctx, repo.Owner, repo.Name, req)
	return convertError(fmt.Sprintf("create label %q in %s", l.Name, repo), err)
}

// ListIssueEvents returns every event of an issue (labeled, unlabeled, ...).
func (c *Client) ListIssueEvents(ctx context.Context, repo Repo, number int) ([]IssueEvent, error) {
	events, err := paginate(func(lo gh.ListOptions) ([]*gh.IssueEvent, *gh.Response, error) {
		return c.gh.Issues.ListIssueEvents(ctx, repo.Owner, repo.Name, number, &lo)
	})
	if err != nil {
		return nil, convertError(fmt.Sprintf("list events of %s#%d", repo, number), err)
	}
	return mapSlice(events, func(e *gh.IssueEvent) IssueEvent {
		return IssueEvent{ID: e.GetID(), Event: e.GetEvent(), Label: e.GetLabel().GetName(),
			Actor: e.GetActor().GetLogin(), CreatedAt: e.GetCreatedAt().Time}
	}), nil
}

// permissionLevel is GitHub's collaborator permission answer. go-github
// v62 lacks role_name, which distinguishes maintain and triage.
type permissionLevel struct {
	Permission string `json:"permission"`
	RoleName   string `json:"role_name"`
}

// CollaboratorPermission returns user's role on the repository:
// admin | maintain | write | triage | read | none. A user who is not a
// collaborator (404) has "none".
func (c *Client) CollaboratorPermission(ctx context.Context, repo Repo, user string) (string, error) {
	u := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), url.PathEscape(user))
	req, err := c.gh.NewRequest("GET", u, nil)
	if err != nil {
		return "", fmt.Errorf("permission of %s on %s: %w", user, repo, err)
	}
	var level permissionLevel
	if _, err := c.gh.Do(ctx, req, &level); err != nil {
		err = convertError(fmt.Sprintf("permission of %s on %s", user, repo), err)
		if errors.Is(err, ErrNotFound) {
			return "none", nil
		}
		return "", err
	}
	switch level.RoleName {
	case "admin", "maintain", "write", "triage", "read":
		return level.RoleName, nil
	}
	switch level.Permission {
	case "admin", "write", "read", "none":
		return level.Permission, nil
	}
	return "none", nil
}

// AddSubIssue attaches the issue with database ID childIssueID (Issue.ID,
// not its number) as a sub-issue of parent.
func (c *Client) AddSubIssue(ctx context.Context, repo Repo, parent int, childIssueID int64) error {
	if err := c.manifest.Check(OpWriteSubIssues); err != nil {
		return err
	}
	what := fmt.Sprintf("add sub-issue %d to %s#%d", childIssueID, repo, parent)
	req, err := c.gh.NewRequest("POST", subIssuesURL(repo, parent), map[string]int64{"sub_issue_id": childIssueID})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	_, err = c.gh.Do(ctx, req, nil)
	return convertError(what, err)
}

// ListSubIssues returns every sub-issue of parent.
func (c *Client) ListSubIssues(ctx context.Context, repo Repo, parent int) ([]Issue, error) {
	what := fmt.Sprintf("list sub-issues of %s#%d", repo, parent)
	issues, err := paginate(func(lo gh.ListOptions) ([]*gh.Issue, *gh.Response, error) {
		u := fmt.Sprintf("%s?per_page=%d", subIssuesURL(repo, parent), lo.PerPage)
		if lo.Page > 0 {
			u += fmt.Sprintf("&page=%d", lo.Page)
		}
		req, err := c.gh.NewRequest("GET", u, nil)
		if err != nil {
			return nil, nil, err
		}
		var page []*gh.Issue
		resp, err := c.gh.Do(ctx, req, &page)
		return page, resp, err
	})
	if err != nil {
		return nil, convertError(what, err)
	}
	return mapSlice(issues, toIssue), nil
}

func subIssuesURL(repo Repo, parent int) string {
	return fmt.Sprintf("repos/%s/%s/issues/%d/sub_issues", url.PathEscape(repo.Owner), url.PathEscape(repo.Name), parent)
}

// deny returns the manifest's verdict for op, which for the operations
// CogWorks never performs is always a *DeniedError (New validates the
// manifest).
func (c *Client) deny(op Operation, detail string) error {
	err := c.manifest.Check(op)
	var denied *DeniedError
	if errors.As(err, &denied) {
		denied.Detail = detail
		return denied
	}
	return &DeniedError{Operation: op, Detail: detail}
}

func toIssue(i *gh.Issue) Issue {
	out := Issue{
		ID: i.GetID(), Number: i.GetNumber(), Title: i.GetTitle(), Body: i.GetBody(),
		State: i.GetState(), User: i.GetUser().GetLogin(), IsPullRequest: i.IsPullRequest(),
		HTMLURL: i.GetHTMLURL(), CreatedAt: i.GetCreatedAt().Time, UpdatedAt: i.GetUpdatedAt().Time,
		Repository: repoFromURL(i.GetRepositoryURL()),
	}
	for _, l := range i.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

func toComment(cm *gh.IssueComment) Comment {
	return Comment{ID: cm.GetID(), Body: cm.GetBody(), User: cm.GetUser().GetLogin(),
		HTMLURL: cm.GetHTMLURL(), CreatedAt: cm.GetCreatedAt().Time, UpdatedAt: cm.GetUpdatedAt().Time}
}

func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, 0, len(in))
	for _, v := range in {
		out = append(out, f(v))
	}
	return out
}

// repoFromURL extracts owner/name from an API repository URL
// (…/repos/{owner}/{name}); "" when it has no such suffix.
func repoFromURL(u string) string {
	_, rest, ok := strings.Cut(u, "/repos/")
	if !ok {
		return ""
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

// redactPtr redacts an optional text field.
func (c *Client) redactPtr(s *string) *string {
	if s == nil {
		return nil
	}
	r := c.redact(*s)
	return &r
}
