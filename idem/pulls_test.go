package idem_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
)

func TestFindOrCreatePullAdoptsOnlyTheBotsOwn(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// before opens PRs on the head as others would; it returns the
		// number a *ForeignPullError must name (0: none expected).
		before  func(t *testing.T, env *testenv.Env) int
		created bool
	}{
		{"nothing there: create", func(*testing.T, *testenv.Env) int { return 0 }, true},
		{"an outsider's open PR blocks and is never adopted", func(t *testing.T, env *testenv.Env) int {
			pr, err := env.ClientAs(t, "mallory").CreatePull(ctx, repo, github.NewPull{Title: "mine", Head: "cogworks/9/swi-1", Base: "main"})
			require.NoError(t, err)
			return pr.Number
		}, false},
		{"the bot's PR against another base is not its PR", func(t *testing.T, env *testenv.Env) int {
			env.Sim.SeedFiles(repo.String(), "elsewhere", map[string]string{"x.txt": "x\n"})
			pr, err := env.Client.CreatePull(ctx, repo, github.NewPull{Title: "old", Head: "cogworks/9/swi-1", Base: "elsewhere"})
			require.NoError(t, err)
			return pr.Number
		}, false},
		{"an outsider's PR on another head does not matter", func(t *testing.T, env *testenv.Env) int {
			env.Sim.SeedFiles(repo.String(), "feature", map[string]string{"b.go": "package b\n"})
			_, err := env.ClientAs(t, "mallory").CreatePull(ctx, repo, github.NewPull{Title: "mine", Head: "feature", Base: "main"})
			require.NoError(t, err)
			return 0
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testenv.New(t)
			env.Sim.SeedFiles(repo.String(), "cogworks/9/swi-1", map[string]string{"a.go": "package a\n"})
			foreignNumber := tt.before(t, env)
			np := github.NewPull{Title: "CogWorks", Body: "by the bot", Head: "cogworks/9/swi-1", Base: "main"}
			pr, created, err := idem.FindOrCreatePull(ctx, env.Client, repo, testenv.Bot, np)
			if foreignNumber != 0 {
				var foreign *idem.ForeignPullError
				require.ErrorAs(t, err, &foreign)
				assert.Equal(t, foreignNumber, foreign.Number)
				assert.Contains(t, err.Error(), "never adopted")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.created, created)
			assert.Equal(t, testenv.Bot, pr.User)
			assert.Equal(t, "by the bot", pr.Body)
		})
	}
}

// TestCreateOrFindPullCreatesInOneRequest checks the path for a caller
// that has just looked for the bot's PR and found none: one request opens
// it, and a PR that appeared meanwhile (422) is found, or reported when an
// outsider's.
func TestCreateOrFindPullCreatesInOneRequest(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		before   func(t *testing.T, env *testenv.Env)
		created  bool
		foreign  bool
		requests int
	}{
		{"nothing there: one request", func(*testing.T, *testenv.Env) {}, true, false, 1},
		{"the bot's PR appeared meanwhile: found after the 422", func(t *testing.T, env *testenv.Env) {
			_, err := env.Client.CreatePull(ctx, repo, github.NewPull{Title: "CogWorks", Body: "by the bot", Head: "cogworks/9/swi-1", Base: "main"})
			require.NoError(t, err)
		}, false, false, 2},
		{"an outsider's PR appeared meanwhile: never adopted", func(t *testing.T, env *testenv.Env) {
			_, err := env.ClientAs(t, "mallory").CreatePull(ctx, repo, github.NewPull{Title: "mine", Head: "cogworks/9/swi-1", Base: "main"})
			require.NoError(t, err)
		}, false, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testenv.New(t)
			env.Sim.SeedFiles(repo.String(), "cogworks/9/swi-1", map[string]string{"a.go": "package a\n"})
			tt.before(t, env)
			env.Sim.ResetRequests()
			np := github.NewPull{Title: "CogWorks", Body: "by the bot", Head: "cogworks/9/swi-1", Base: "main"}
			pr, created, err := idem.CreateOrFindPull(ctx, env.Client, repo, testenv.Bot, np)
			assert.Equal(t, tt.requests, env.Sim.RequestCount(), "%v", env.Sim.Requests())
			if tt.foreign {
				var foreign *idem.ForeignPullError
				require.ErrorAs(t, err, &foreign)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.created, created)
			assert.Equal(t, testenv.Bot, pr.User)
			assert.Len(t, env.Sim.Pulls(repo.String()), 1, "never a second PR on the head")
		})
	}
}
