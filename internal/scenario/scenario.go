package scenario

import (
	"context"
	"time"
)

// Scenario is one human-authored end-to-end behaviour specification.
type Scenario struct {
	// ID is the scenario's unique identifier, e.g. "SCN-TEL-001".
	ID string
	// Description is a human summary. It is holdout material and never
	// appears in Feedback.
	Description string
	// Covers lists the interface ids the scenario exercises.
	Covers []string
	// Trajectories overrides Config.DefaultTrajectories when positive.
	Trajectories int
	// Twin names a twin from .cogworks/twins/ to run alongside, or "".
	Twin string
	// Run says what the simulator runs once per trajectory.
	Run RunSpec
	// Acceptance criteria must all hold for a trajectory to be satisfied.
	Acceptance []Criterion
	// Failure criteria fail the whole validation when any trajectory hits one.
	Failure []Criterion
	// File is the repository-relative path the scenario was loaded from.
	File string
}

// RunSpec is the [run] table of a scenario.
type RunSpec struct {
	// Overlay lists the scenario's own files, copied onto the working copy
	// only while the scenario runs.
	Overlay []Overlay
	// Packages are the packages (or equivalent units) the simulator runs.
	Packages []string
	// Filter selects tests or scenario commands.
	Filter string
}

// Overlay is one scenario-owned file: From is its repository-relative
// source, To its destination in the working copy, Content the file's bytes
// as read by the loader.
type Overlay struct {
	From    string
	To      string
	Content string
}

// Criterion is one acceptance or failure check in the seeds' assertion
// vocabulary: Check names the check type, Params holds its inline
// parameters (numbers normalised to float64), When optional conditions.
type Criterion struct {
	Check   string
	Message string
	When    map[string]any
	Params  map[string]any
}

// Run is one trajectory's request to the Simulator.
type Run struct {
	// Packages and Filter come from the scenario's RunSpec.
	Packages []string
	Filter   string
	// Overlay maps destination paths to file contents; it is a fresh copy
	// for every trajectory.
	Overlay map[string]string
}

// TestResult is the outcome of one test inside a trajectory.
type TestResult struct {
	Name   string
	Passed bool
	// Skipped tests have Passed set too: they did not fail, and prove
	// nothing.
	Skipped bool
	Output  string
}

// Observation is everything a trajectory produced and that criteria may
// inspect.
type Observation struct {
	ExitCode int
	Output   string
	Tests    []TestResult
	// Files maps produced file paths to their content.
	Files    map[string]string
	Duration time.Duration
	// Fields are structured outputs addressed by output.<field> checks;
	// nested maps are reached with dotted names.
	Fields map[string]any
	// Problems are the reasons the run's tests do not prove anything
	// (package testverdict: a test failed, no test ran, the scenario's
	// own tests did not run, the service's claim contradicts its tests).
	// A trajectory with problems is never satisfied, whatever its
	// criteria say.
	Problems []string
}

// Simulator executes one trajectory. Each call must start from fresh state.
type Simulator interface {
	Simulate(ctx context.Context, run Run) (Observation, error)
}

// Judge scores an observation against natural-language criteria (llm_judge).
type Judge interface {
	Judge(ctx context.Context, criteria string, obs Observation) (passed bool, score float64, reasoning string, err error)
}

// CriterionResult is the outcome of one criterion on one trajectory.
type CriterionResult struct {
	Check   string
	Passed  bool
	Skipped bool
	// Reason explains the outcome: why it failed, held or was skipped.
	Reason  string
	Message string
}
