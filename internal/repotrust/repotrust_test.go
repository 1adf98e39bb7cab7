package repotrust_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/repotrust"
)

func TestParseRepoTrust(t *testing.T) {
	acme := github.Repo{Owner: "acme", Name: "widgets"}
	tests := []struct {
		list  string
		inst  int64
		repo  github.Repo
		want  bool
		isErr bool
	}{
		{"", 1, acme, false, false},
		{"acme/widgets", 1, acme, true, false},
		{"ACME/Widgets", 1, acme, true, false},
		{"acme/gadgets", 1, acme, false, false},
		{"acme/*", 1, acme, true, false},
		{"other/*, acme/gadgets", 1, acme, false, false},
		{"42", 42, acme, true, false},
		{"42", 43, acme, false, false},
		{"*", 9, acme, true, false},
		{"acme", 0, acme, false, true},
		{"/*", 0, acme, false, true},
		{"a/b/c", 0, acme, false, true},
		{"-3", 0, acme, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			tr, err := repotrust.ParseRepoTrust(tt.list)
			if tt.isErr {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "trusted repository config entry")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tr.Trusts(tt.inst, tt.repo))
		})
	}
}
