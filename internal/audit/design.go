package audit

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/pipeline"
)

// writeDesignChange shows, under a gate that paused on an amended
// specification or interface file, what changed in each file since the
// plan was made from it (Snapshot.Design against Snapshot.Amended).
func writeDesignChange(b *strings.Builder, s pipeline.Snapshot) {
	if s.Gate == nil || s.Design == nil || s.Amended == nil || s.Design.Same(*s.Amended) {
		return
	}
	paths := s.Design.Paths()
	for _, p := range s.Amended.Paths() {
		if _, ok := s.Design.File(p); !ok {
			paths = append(paths, p)
		}
	}
	b.WriteString("The design the plan was made from changed; approving re-plans only the sub-work-items the change touches:\n\n")
	for _, p := range paths {
		was, _ := s.Design.File(p)
		now, _ := s.Amended.File(p)
		if was.SHA256 == now.SHA256 {
			continue
		}
		fmt.Fprintf(b, "%s:\n\n", code(p))
		if s.Design.Omitted || s.Amended.Omitted {
			b.WriteString("The files were too long to keep, so no diff is shown; the file's history has it.\n\n")
			continue
		}
		b.WriteString(TextDiff(was.Text, now.Text) + "\n\n")
	}
}
