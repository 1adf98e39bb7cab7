package pipeline

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/snapshot-v2.0.0.md is a status comment rendered by the last 2.x
// build, kept byte for byte: it reads as a snapshot without a pin whose
// gate passes to the next stage (Resume false), its sub-work-items
// migrated to one record each as from 3.0.0.
func TestParseSnapshotMigratesGoldenV2(t *testing.T) {
	v1, err := os.ReadFile("testdata/snapshot-v1.0.0.md")
	require.NoError(t, err)
	want, _, err := ParseSnapshot(string(v1))
	require.NoError(t, err)
	want.Gate = &GateRecord{Stage: StageReview, SWI: "B", Since: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), Reason: "review <done> -- waits"}

	body, err := os.ReadFile("testdata/snapshot-v2.0.0.md")
	require.NoError(t, err)
	require.Contains(t, string(body), `"schema_version":"2.0.0"`)
	got, found, err := ParseSnapshot(string(body))
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, want, got)
	assert.Equal(t, SchemaVersion, got.SchemaVersion, "a migrated snapshot is written back in the current form")
	assert.Nil(t, got.Pin, "2.x had no pin: the next acting step pins the issue")
	assert.False(t, got.Gate.Resume)

	got.Pin = &IssuePin{SHA256: IssueDigest("t", "b"), By: "alice", At: want.Gate.Since, Via: "label"}
	got.Gate.Resume = true
	block, err := RenderSnapshot(got)
	require.NoError(t, err)
	again, _, err := ParseSnapshot(block)
	require.NoError(t, err)
	assert.Equal(t, got, again, "the 3.0.0 fields round-trip")
}

func TestIssueDigest(t *testing.T) {
	assert.Equal(t, IssueDigest("a", "b"), IssueDigest("a", "b"))
	assert.NotEqual(t, IssueDigest("a", "b"), IssueDigest("a", "b "), "any edit of the body changes it")
	assert.NotEqual(t, IssueDigest("ab", ""), IssueDigest("a", "b"), "title and body are kept apart")
	assert.Len(t, IssueDigest("", ""), 64)
}
