package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRecordsAreKeptOncePerPRSortedByPR(t *testing.T) {
	var s Snapshot
	s.RecordRevision(RevisionRecord{PR: 9, Cycle: 1})
	s.RecordRevision(RevisionRecord{PR: 4, Cycle: 1})
	s.RecordRevision(RevisionRecord{PR: 9, Cycle: 2})
	assert.Equal(t, []RevisionRecord{{PR: 4, Cycle: 1}, {PR: 9, Cycle: 2}}, s.Revisions, "the later cycle replaces the PR's record; PRs sorted")
	r, ok := s.Revision(9)
	assert.True(t, ok)
	assert.Equal(t, 2, r.Cycle)
	_, ok = s.Revision(5)
	assert.False(t, ok)

	s.RecordRestack(RestackRecord{PR: 7, Action: RestackUpdated})
	s.RecordRestack(RestackRecord{PR: 3, Action: RestackConflict})
	s.RecordRestack(RestackRecord{PR: 3, Action: RestackResolved, Cycle: 1})
	assert.Equal(t, []RestackRecord{{PR: 3, Action: RestackResolved, Cycle: 1}, {PR: 7, Action: RestackUpdated}}, s.Restacks)
	got, ok := s.Restack(7)
	assert.True(t, ok)
	assert.Equal(t, RestackUpdated, got.Action)
	_, ok = s.Restack(4)
	assert.False(t, ok)
}
