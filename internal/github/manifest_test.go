package github

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAssertINT003_DeniedOperationsFailLoudly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	content := "x"
	tests := []struct {
		name string
		call func(*Client) error
		op   Operation
	}{
		{"merge PR", func(c *Client) error { return c.MergePull(ctx, testRepo, 4) }, OpMergePull},
		{"close PR", func(c *Client) error { return c.ClosePull(ctx, testRepo, 4) }, OpClosePull},
		{"close issue", func(c *Client) error { return c.CloseIssue(ctx, testRepo, 4) }, OpCloseIssue},
		{"approve", func(c *Client) error {
			_, err := c.CreateReview(ctx, testRepo, 4, NewReview{Event: ReviewApprove, Body: "lgtm"})
			return err
		}, OpApprovePull},
		{"request changes", func(c *Client) error {
			_, err := c.CreateReview(ctx, testRepo, 4, NewReview{Event: ReviewRequestChanges})
			return err
		}, OpRequestChanges},
		{"tree under interfaces", func(c *Client) error {
			_, err := c.CreateTree(ctx, testRepo, "base", []TreeEntry{
				{Path: "src/ok.go", Content: &content},
				{Path: ".cogworks/interfaces/can.toml", Content: &content}})
			return err
		}, OpWriteProtectedPath},
		{"tree deleting a scenario", func(c *Client) error {
			_, err := c.CreateTree(ctx, testRepo, "base", []TreeEntry{{Path: ".cogworks/scenarios/s1.toml", Delete: true}})
			return err
		}, OpWriteProtectedPath},
		{"tree replacing .cogworks wholesale", func(c *Client) error {
			_, err := c.CreateTree(ctx, testRepo, "base", []TreeEntry{{Path: ".cogworks", Type: "tree", Mode: "040000", SHA: "t"}})
			return err
		}, OpWriteProtectedPath},
		{"put file in scenarios via ./ and case", func(c *Client) error {
			return c.PutFile(ctx, testRepo, FileCommit{Path: "./.CogWorks/Scenarios/x.toml", Branch: "main", Message: "m", Content: []byte("x")})
		}, OpWriteProtectedPath},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestClient(t, failOnRequest(t))
			err := tt.call(c)
			var denied *DeniedError
			require.ErrorAs(t, err, &denied)
			assert.Equal(t, tt.op, denied.Operation)
			assert.Contains(t, err.Error(), "denied by the CogWorks manifest")
			assert.Zero(t, c.Requests(), "denied operations send no request")
		})
	}
}

func TestUnsafePathsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	content := "x"
	for _, p := range []string{"", "/etc/passwd", `\windows`, "C:/x", "../outside", "a/../../b", `a\..\b`} {
		t.Run(p, func(t *testing.T) {
			c, _ := newTestClient(t, failOnRequest(t))
			_, err := c.CreateTree(context.Background(), testRepo, "", []TreeEntry{{Path: p, Content: &content}})
			var pathErr *PathError
			require.ErrorAs(t, err, &pathErr)
			assert.Equal(t, p, pathErr.Path)
			err = c.PutFile(context.Background(), testRepo, FileCommit{Path: p, Branch: "main", Message: "m", Content: []byte("x")})
			require.ErrorAs(t, err, &pathErr)
			assert.Zero(t, c.Requests())
		})
	}
}

func TestRestrictedManifestDeniesWrites(t *testing.T) {
	t.Parallel()
	readOnly := Manifest{Deny: []Operation{OpMergePull, OpApprovePull, OpRequestChanges, OpClosePull, OpCloseIssue, OpWriteProtectedPath}}
	c, _ := newTestClient(t, failOnRequest(t), func(o *Options) { o.Manifest = &readOnly })
	ctx := context.Background()
	calls := map[Operation]error{
		OpWriteLabels:     c.AddLabels(ctx, testRepo, 1, "a"),
		OpWriteComments:   c.DeleteComment(ctx, testRepo, 1),
		OpWriteReactions:  c.CreateReaction(ctx, testRepo, 1, ReactionEyes),
		OpWriteGit:        c.CreateBranch(ctx, testRepo, "b", "sha"),
		OpWriteSubIssues:  c.AddSubIssue(ctx, testRepo, 1, 2),
		OpWriteRepoLabels: c.CreateRepoLabel(ctx, testRepo, Label{Name: "x"}),
	}
	for op, err := range calls {
		var denied *DeniedError
		require.True(t, errors.As(err, &denied), "%s: %v", op, err)
		assert.Equal(t, op, denied.Operation)
	}
	_, err := c.CreateReview(ctx, testRepo, 1, NewReview{Event: ReviewComment})
	var denied *DeniedError
	require.ErrorAs(t, err, &denied)
	assert.Equal(t, OpCommentReview, denied.Operation)
	assert.Zero(t, c.Requests())
}

func TestManifestValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, DefaultManifest().Validate())
	for _, op := range []Operation{OpMergePull, OpApprovePull, OpRequestChanges, OpClosePull, OpCloseIssue, OpWriteProtectedPath} {
		m := Manifest{Allow: []Operation{op}}
		assert.ErrorContains(t, m.Validate(), string(op))
	}
}
