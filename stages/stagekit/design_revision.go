package stagekit

import (
	"fmt"
	"slices"
	"strings"
)

// DesignRequest asks a design stage (architecture, interface design) to
// revise its own pull request on review feedback (stages/revision): the
// stage's LLM call runs again with the document as it reads on Branch and
// Feedback, the reviewers' words already quoted as untrusted data.
type DesignRequest struct {
	PR       int
	Branch   string
	Feedback string
}

// DesignRevision is a design stage's answer to a DesignRequest, validated
// exactly as the stage validates its first answer.
type DesignRevision struct {
	// Files are written on the PR's branch in one commit; Delete are
	// removed in it (files of the earlier design the new one dropped).
	Files  map[string]string
	Delete []string
	// Summary says what changed, for the replies and the commit.
	Summary string
	// PullBody, when set, replaces the PR's body before the commit: the
	// interface PR's body carries the interface list the stage records
	// and recovers from.
	PullBody string
	// Reason, for an answer of no files, says why nothing changed.
	Reason string
}

// ChangedSections names the "## " sections of a Markdown document whose
// text differs between old and new (added and removed ones too), in new's
// order then old's: what a revision of the specification changed, said
// without trusting the model's own account of it.
func ChangedSections(old, new string) []string {
	o, n := sections(old), sections(new)
	var out []string
	for _, s := range n.order {
		if o.text[s] != n.text[s] || !slices.Contains(o.order, s) {
			out = append(out, s)
		}
	}
	for _, s := range o.order {
		if !slices.Contains(n.order, s) {
			out = append(out, s+" (removed)")
		}
	}
	return out
}

type sectioned struct {
	order []string
	text  map[string]string
}

// sections splits a document at its "## " headings; text before the first
// one is the section "title".
func sections(doc string) sectioned {
	s := sectioned{text: map[string]string{}}
	cur := "title"
	var b strings.Builder
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" || cur != "title" {
			if !slices.Contains(s.order, cur) {
				s.order = append(s.order, cur)
			}
			s.text[cur] += t
		}
		b.Reset()
	}
	for _, l := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			flush()
			cur = strings.TrimSpace(h)
			continue
		}
		fmt.Fprintln(&b, l)
	}
	flush()
	return s
}
