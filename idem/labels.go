package idem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// LabelAPI is what Labels needs from GitHub.
type LabelAPI interface {
	AddLabels(ctx context.Context, repo github.Repo, number int, labels ...string) error
	RemoveLabel(ctx context.Context, repo github.Repo, number int, label string) error
	ListRepoLabels(ctx context.Context, repo github.Repo) ([]github.Label, error)
	CreateRepoLabel(ctx context.Context, repo github.Repo, label github.Label) error
}

// LabelSpec gives the colour and description of a label CogWorks owns.
type LabelSpec func(name string) (color, description string, ok bool)

// Labels ensures labels on issues, creating repository labels (with
// colour and description) the first time one is used. It caches the
// repository's label list for its lifetime, so create one per step.
type Labels struct {
	api   LabelAPI
	repo  github.Repo
	spec  LabelSpec
	known map[string]bool
}

// NewLabels returns a Labels for one repository.
func NewLabels(api LabelAPI, repo github.Repo, spec LabelSpec) *Labels {
	return &Labels{api: api, repo: repo, spec: spec}
}

// Ensure makes sure the issue carries label. current is the label
// list as last read; when it already has the label nothing is sent
// (ASSERT-IDEM-003). It reports whether a write happened.
func (l *Labels) Ensure(ctx context.Context, number int, current []string, label string) (bool, error) {
	if slices.Contains(current, label) {
		return false, nil
	}
	if err := l.ensureRepoLabel(ctx, label); err != nil {
		return false, err
	}
	if err := l.api.AddLabels(ctx, l.repo, number, label); err != nil {
		return false, fmt.Errorf("add label %q to %s#%d: %w", label, l.repo, number, err)
	}
	return true, nil
}

// EnsureAbsent makes sure the issue does not carry label. A 404 (already
// gone, e.g. removed by a concurrent run) is success.
func (l *Labels) EnsureAbsent(ctx context.Context, number int, current []string, label string) (bool, error) {
	if !slices.Contains(current, label) {
		return false, nil
	}
	err := l.api.RemoveLabel(ctx, l.repo, number, label)
	if errors.Is(err, github.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("remove label %q from %s#%d: %w", label, l.repo, number, err)
	}
	return true, nil
}

// EnsureRepoLabels creates those of names that the repository lacks, with
// the colour and description LabelSpec gives them (GitHub would create a
// label applied to a new issue grey). Names are compared case-insensitively,
// as GitHub does; a 422 means a concurrent run created the label. The
// repository's label list is read once per Labels.
func (l *Labels) EnsureRepoLabels(ctx context.Context, names ...string) error {
	for _, name := range names {
		if err := l.ensureRepoLabel(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (l *Labels) ensureRepoLabel(ctx context.Context, name string) error {
	if l.spec == nil {
		return nil
	}
	color, desc, ok := l.spec(name)
	if !ok {
		return nil
	}
	if l.known == nil {
		labels, err := l.api.ListRepoLabels(ctx, l.repo)
		if err != nil {
			return fmt.Errorf("list labels of %s: %w", l.repo, err)
		}
		l.known = make(map[string]bool, len(labels))
		for _, lb := range labels {
			l.known[strings.ToLower(lb.Name)] = true
		}
	}
	if l.known[strings.ToLower(name)] {
		return nil
	}
	err := l.api.CreateRepoLabel(ctx, l.repo, github.Label{Name: name, Color: color, Description: desc})
	if err != nil && !errors.Is(err, github.ErrUnprocessable) { // 422: created meanwhile
		return fmt.Errorf("create label %q in %s: %w", name, l.repo, err)
	}
	l.known[strings.ToLower(name)] = true
	return nil
}
