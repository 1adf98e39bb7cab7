package factory

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/workspace"
	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/restack"
)

// EngineDeps wires the step function for one repository.
func (f *Factory) EngineDeps(ctx context.Context, repo github.Repo, dir string, dryRun bool) (engine.Deps, error) {
	cfg, err := f.LoadConfig(dir)
	if err != nil {
		return engine.Deps{}, err
	}
	gh, err := f.Client(ctx)
	if err != nil {
		return engine.Deps{}, err
	}
	return f.EngineDepsWith(ctx, gh, workspace.Checkout{Repo: repo, Dir: dir, Config: cfg}, dryRun)
}

// EngineDepsWith wires the step function for the checked-out repository
// co, whose configuration and files are already at hand (its Repo, Dir
// and Config; the branch and commit are not read).
func (f *Factory) EngineDepsWith(ctx context.Context, gh Client, co workspace.Checkout, dryRun bool) (engine.Deps, error) {
	repo, cfg := co.Repo, co.Config
	bot, err := f.OwnLogin(ctx, gh)
	if err != nil {
		return engine.Deps{}, err
	}
	key, _ := f.SigningKey()
	f.warnIdentity(bot, key)
	deps := engine.Deps{
		GitHub: gh, Config: cfg, RunID: NewRunID(), BotLogin: bot, StateKey: key,
		Clock: f.Clock, Logger: f.Logger(), DryRun: dryRun,
	}
	// A dry run never executes a stage, so it needs no LLM key.
	if f.Executors != nil && !dryRun {
		deps.Executors, deps.Registry, err = f.Executors(ctx, gh, repo, co.Dir, cfg)
		if err != nil {
			return engine.Deps{}, err
		}
		deps.Reviser = stages.ReviserOf(gh, deps.Executors)
		deps.CIReviser = stages.CIReviserOf(gh, deps.Executors)
		deps.Design = stages.DesignOf(gh, deps.Executors)
	}
	if rg, ok := gh.(restack.GitHub); ok && !dryRun {
		deps.Restacker = restack.Step{GitHub: rg}
	}
	return deps, nil
}

// NewRunID names one invocation in its run records ("run-" and 12 hex
// digits).
func NewRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}
