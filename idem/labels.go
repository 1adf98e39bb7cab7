package idem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// LabelSetter is what SetLabelSet needs: one request that replaces an
// issue's labels.
type LabelSetter interface {
	SetLabels(ctx context.Context, repo github.Repo, number int, labels []string) ([]string, error)
}

// LabelAPI is what Labels needs from GitHub.
type LabelAPI interface {
	LabelSetter
	ListRepoLabels(ctx context.Context, repo github.Repo) ([]github.Label, error)
	CreateRepoLabel(ctx context.Context, repo github.Repo, label github.Label) error
}

// SameSet reports whether a and b hold the same label names, in any order
// (label lists are sets on GitHub).
func SameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// SetLabelSet makes issue number carry exactly the labels want. current
// is the label list as last read: when it already is want (as a
// set) nothing is sent; otherwise one PUT replaces the whole list, so a
// stage transition (one label out, one in) is one request and repeating
// it is a no-op (ASSERT-IDEM-003). Every label write of an issue goes
// through here. It returns the labels the issue carries afterwards and
// whether a write happened.
func SetLabelSet(ctx context.Context, api LabelSetter, repo github.Repo, number int, current, want []string) ([]string, bool, error) {
	if SameSet(current, want) {
		return current, false, nil
	}
	got, err := api.SetLabels(ctx, repo, number, want)
	if err != nil {
		return nil, false, fmt.Errorf("set labels %v on %s#%d: %w", want, repo, number, err)
	}
	return got, true, nil
}

// Labels writes issue labels, creating repository labels (with colour and
// description) the first time one is used. It caches the repository's
// label list for its lifetime, so create one per step.
type Labels struct {
	api   LabelAPI
	repo  github.Repo
	spec  LabelSpec
	known map[string]bool
}

// LabelSpec gives the colour and description of a label CogWorks owns.
type LabelSpec func(name string) (color, description string, ok bool)

// NewLabels returns a Labels for one repository.
func NewLabels(api LabelAPI, repo github.Repo, spec LabelSpec) *Labels {
	return &Labels{api: api, repo: repo, spec: spec}
}

// Add makes the issue carry labels besides those it has: the repository
// labels it lacks are created first, then SetLabelSet writes current with
// labels added, in one request or none. current must be the label
// list as last read: the PUT replaces the whole list.
func (l *Labels) Add(ctx context.Context, number int, current []string, labels ...string) ([]string, bool, error) {
	want := slices.Clone(current)
	for _, name := range labels {
		if slices.Contains(want, name) {
			continue
		}
		if err := l.ensureRepoLabel(ctx, name); err != nil {
			return nil, false, err
		}
		want = append(want, name)
	}
	return SetLabelSet(ctx, l.api, l.repo, number, current, want)
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
