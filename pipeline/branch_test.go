package pipeline_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/pipeline"
)

func TestParseBranch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ref     string
		want    pipeline.Branch
		notOurs bool   // ErrNotBranch
		errText string // another error
	}{
		{ref: "cogworks/42/spec", want: pipeline.Branch{Item: 42, What: "spec"}},
		{ref: "cogworks/7/swi-2", want: pipeline.Branch{Item: 7, What: "swi-2"}},
		{ref: "cogworks/7/", want: pipeline.Branch{Item: 7}},
		{ref: "feature/x", notOurs: true},
		{ref: "cogworks/x/spec", notOurs: true},
		{ref: "cogworks/7", notOurs: true},
		{ref: "cogworks//spec", notOurs: true},
		{ref: "refs/heads/cogworks/7/spec", notOurs: true},
		{ref: "cogworks/0/spec", errText: "bad work item number"},
		{ref: "cogworks/007/spec", errText: "bad work item number"},
		{ref: "cogworks/99999999999999999999/spec", errText: "bad work item number"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			t.Parallel()
			got, err := pipeline.ParseBranch(tt.ref)
			n, ok := pipeline.WorkItemOfBranch(tt.ref)
			switch {
			case tt.notOurs:
				require.ErrorIs(t, err, pipeline.ErrNotBranch)
				assert.False(t, ok)
			case tt.errText != "":
				require.Error(t, err)
				assert.False(t, errors.Is(err, pipeline.ErrNotBranch), "a malformed CogWorks branch is not a person's branch")
				assert.Contains(t, err.Error(), tt.errText)
				assert.False(t, ok)
			default:
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				assert.Equal(t, tt.ref, got.String(), "String is the inverse of ParseBranch")
				assert.True(t, ok)
				assert.Equal(t, tt.want.Item, n)
			}
		})
	}
}
