package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// An approved specification can change after later stages began: a
// maintainer edits the merged docs/cogworks/<N>-specification.md, or
// pushes to the spec PR. The snapshot pins the digest of every design
// file the plan was made from (Snapshot.Design, at planning); a step past
// planning that reads them changed pauses with the diff (Snapshot.Amended
// holds the text it paused on), and once a writer approves that text the
// sub-work-items are re-planned (StateReplan): new and changed ones are
// filed, obsolete ones told and closed, the others untouched. Once the
// spec or interface PR is merged, the default branch's version is the one
// watched (DesignFile.OnDefault), found changed by one compare from the
// commit last checked (DesignBasis.Base).

// DesignFile is one design file as a plan was made from it.
type DesignFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Text is the file itself while the basis is short enough to keep
	// (MaxKeptText over all files), so that a pause can show the diff.
	Text string `json:"text,omitempty"`
	// OnDefault is set once the default branch has its own version of
	// the file (its PR was merged, or it was edited there): from then on
	// the default branch's version is the one watched.
	OnDefault bool `json:"on_default,omitempty"`
}

// DesignBasis is the set of design files (the specification, the
// interface files) a plan was made from, in path order.
type DesignBasis struct {
	Files []DesignFile `json:"files"`
	At    time.Time    `json:"at"`
	// Omitted is set when the files were too long to keep their text.
	Omitted bool `json:"omitted,omitempty"`
	// Base is the default branch's commit the files were last checked
	// against: the next check asks GitHub only what the default branch
	// changed since (one compare). Like OnDefault it is not part of the
	// digest; "" in a pin made before it was recorded.
	Base string `json:"base,omitempty"`
	// Branch is the default branch's name Base was read on, so that a
	// check needs no read of the repository.
	Branch string `json:"branch,omitempty"`
}

// NewDesignBasis records files (path → content) read at at, keeping the
// text while all of it fits in MaxKeptText. A missing file is recorded
// with an empty digest, so its later appearance counts as a change.
func NewDesignBasis(files map[string]string, at time.Time) DesignBasis {
	b := DesignBasis{At: at}
	total := 0
	for p, c := range files {
		total += len(c)
		f := DesignFile{Path: p, Text: c}
		if c != "" {
			f.SHA256 = contentDigest(c)
		}
		b.Files = append(b.Files, f)
	}
	slices.SortFunc(b.Files, func(x, y DesignFile) int { return strings.Compare(x.Path, y.Path) })
	if total > MaxKeptText {
		b.Omitted = true
		for i := range b.Files {
			b.Files[i].Text = ""
		}
	}
	return b
}

// Digest identifies the basis's content: the same files with the same
// contents give the same digest, whatever was kept of the text.
func (b DesignBasis) Digest() string {
	h := sha256.New()
	for _, f := range b.Files {
		fmt.Fprintf(h, "%d:%s=%s\n", len(f.Path), f.Path, f.SHA256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OnDefaultBranch marks the files at paths as read on the default
// branch (DesignFile.OnDefault).
func (b *DesignBasis) OnDefaultBranch(paths map[string]bool) {
	for i := range b.Files {
		b.Files[i].OnDefault = paths[b.Files[i].Path]
	}
}

// Same reports whether b and o pin the same contents.
func (b DesignBasis) Same(o DesignBasis) bool { return b.Digest() == o.Digest() }

// Paths lists the pinned paths.
func (b DesignBasis) Paths() []string {
	out := make([]string, len(b.Files))
	for i, f := range b.Files {
		out[i] = f.Path
	}
	return out
}

// File returns the pinned file at path.
func (b DesignBasis) File(path string) (DesignFile, bool) {
	i := slices.IndexFunc(b.Files, func(f DesignFile) bool { return f.Path == path })
	if i < 0 {
		return DesignFile{}, false
	}
	return b.Files[i], true
}

func contentDigest(c string) string {
	sum := sha256.Sum256([]byte(c))
	return hex.EncodeToString(sum[:])
}

// designAmended: an item past planning whose design was pinned, and the
// text a writer was shown (Amended) differs from it.
func designAmended(in GuardInput) bool {
	s := in.Snapshot
	return s.Stage.PerSWI() && s.Design != nil && s.Amended != nil && !s.Design.Same(*s.Amended)
}
