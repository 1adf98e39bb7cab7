package demo

import (
	"fmt"
	"strings"
)

// The demo's review-and-revise cycle (issue 28): once the pipeline is
// complete, the maintainer reviews the codec's pull request with "changes
// requested" and two inline comments on telemetry/brake.go; CogWorks
// revises the PR once — one follow-up commit, one reply per thread.

// ReviewPath is the file the maintainer's inline comments are on.
const ReviewPath = "telemetry/brake.go"

// ReviewBody is the maintainer's review summary.
const ReviewBody = "Two documentation fixes before I merge this."

// ReviewComment is one inline comment of the maintainer's review.
type ReviewComment struct {
	Line int
	Body string
}

// ReviewComments are the maintainer's inline comments on the codec as
// CogWorks committed it (brake), at the lines of its two doc comments.
func ReviewComments(brake string) ([]ReviewComment, error) {
	enc, err := lineOf(brake, "// EncodeBrakePressure encodes")
	if err != nil {
		return nil, err
	}
	dec, err := lineOf(brake, "// DecodeBrakePressure decodes")
	if err != nil {
		return nil, err
	}
	return []ReviewComment{
		{Line: enc, Body: "Say that the payload is big-endian, so firmware decoders agree."},
		{Line: dec, Body: "Name the unit DecodeBrakePressure returns."},
	}, nil
}

func lineOf(content, prefix string) (int, error) {
	for i, l := range strings.Split(content, "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("demo review: no line starting %q in %s", prefix, ReviewPath)
}

// revisionMarker is in every revision attempt's prompt
// (revision.Render), never in a first attempt's.
const revisionMarker = "The quoted text below was written by reviewers or tools"

// brakeDocEdits answer the review: the two doc comments, edited in place.
func brakeDocEdits() map[string]any {
	return map[string]any{
		"edits": []map[string]string{
			{"path": ReviewPath, "old": "// EncodeBrakePressure encodes a brake pressure reading in kPa as a CAN frame.",
				"new": "// EncodeBrakePressure encodes a brake pressure reading in kPa as a CAN frame\n// whose 4-byte payload is big-endian (SWD-IF-CAN-01)."},
			{"path": ReviewPath, "old": "// DecodeBrakePressure decodes a frame produced by EncodeBrakePressure.",
				"new": "// DecodeBrakePressure decodes a frame produced by EncodeBrakePressure and\n// returns the brake pressure in kPa."},
		},
		"files": []any{}, "deletes": []string{}, "renames": []any{},
		"notes": "Documented the big-endian payload and the kPa unit.",
	}
}
