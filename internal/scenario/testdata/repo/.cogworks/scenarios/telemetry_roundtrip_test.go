package telemetry

import "testing"

func TestScenarioRoundTrip(t *testing.T) {
	t.Log("scenario-owned holdout test")
}
