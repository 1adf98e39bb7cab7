package github_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// TestCapabilityManifestMatchesMachine ties the two declarations of the
// SASS capability manifest together: pipeline.StateMachine() declares it as
// strings (what the machine document shows), github.DefaultManifest
// enforces it typed. They drifted once (reactions.write enforced and used,
// not declared); this fails when they differ again.
func TestCapabilityManifestMatchesMachine(t *testing.T) {
	t.Parallel()
	names := func(ops []github.Operation) []string {
		out := make([]string, 0, len(ops))
		for _, op := range ops {
			out = append(out, string(op))
		}
		return out
	}
	declared := pipeline.StateMachine().Capabilities
	enforced := github.DefaultManifest()
	assert.ElementsMatch(t, names(enforced.Allow), declared.Allow, "allow lists differ")
	assert.ElementsMatch(t, names(enforced.Deny), declared.Deny, "deny lists differ")
}
