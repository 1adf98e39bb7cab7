package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Config is the typed [scenarios] configuration plus the recorded history.
type Config struct {
	// Threshold is the minimum overall satisfaction score, in [0, 1].
	Threshold float64
	// DefaultTrajectories is used for scenarios that do not set their own.
	DefaultTrajectories int
	// History holds each scenario's earlier trajectory outcomes (may be nil).
	History History
}

// Validate checks the configuration values.
func (c Config) Validate() error {
	if c.Threshold < 0 || c.Threshold > 1 {
		return fmt.Errorf("scenario threshold must be between 0 and 1, got %g", c.Threshold)
	}
	if c.DefaultTrajectories < 1 {
		return fmt.Errorf("scenario trajectories must be at least 1, got %d", c.DefaultTrajectories)
	}
	return nil
}

// Result is the outcome of one scenario validation.
type Result struct {
	// Skipped is set when no scenario applied; a skipped result is Passed.
	Skipped    bool
	SkipReason string
	// Passed is true iff Overall ≥ Threshold and no failure criterion was hit.
	Passed bool
	// Overall is satisfied/total over every trajectory of every scenario.
	Overall   float64
	Threshold float64
	Satisfied int
	Total     int
	Scenarios []Outcome
	// FailureHits describes every trajectory that hit a failure criterion.
	FailureHits []string
	// Warnings are problems that did not affect the verdict (a twin that
	// failed to stop cleanly).
	Warnings []string
	// History is Config.History with this validation's outcomes recorded.
	History History
	// Ran and NotApplied say why each scenario ran or did not apply
	// (Selection); the caller fills them from its selection.
	Ran        []string
	NotApplied []string
}

// Outcome is one scenario's outcome.
type Outcome struct {
	ID string
	// Score is Satisfied / Trajectories.
	Score        float64
	Trajectories int
	Satisfied    int
	// Failures summarises why trajectories were not satisfied, one line per
	// distinct criterion and reason, with the trajectories concerned.
	Failures []string
	// FailedTests names the tests that failed in unsatisfied trajectories.
	FailedTests []string
	// Trust is the pass rate over the scenario's recorded runs, this
	// validation's trajectories included.
	Trust TrustScore
	Runs  []TrajectoryResult
}

// TrajectoryResult is the evaluation of one trajectory.
type TrajectoryResult struct {
	// Index counts from 1.
	Index      int
	Satisfied  bool
	ExitCode   int
	Duration   time.Duration
	Acceptance []CriterionResult
	// Failure holds the failure criteria results; a result that Passed and
	// was not Skipped is a hit.
	Failure []CriterionResult
}

// Select returns, in their original order, the scenarios whose covers
// overlap interfaces (ASSERT-SCEN-001).
func Select(all []Scenario, interfaces []string) []Scenario {
	var out []Scenario
	for _, sc := range all {
		if slices.ContainsFunc(sc.Covers, func(id string) bool { return slices.Contains(interfaces, id) }) {
			out = append(out, sc)
		}
	}
	return out
}

// stopTimeout bounds a twin's Stop after the validation context is done.
const stopTimeout = time.Minute

// Harness runs and judges the scenarios' trajectories: the ports
// Validate uses.
type Harness struct {
	// Sim runs each trajectory; required when any scenario is given.
	Sim Simulator
	// Twins are the registered twins and their runner; the zero value
	// serves scenarios without a twin.
	Twins Twins
	// Judge scores llm_judge criteria; nil fails each such criterion
	// with a reason saying no judge is configured.
	Judge Judge
}

// Validate runs every scenario's trajectories through h.Sim and scores
// them. With no scenarios the result is Skipped (and Passed). Simulator,
// twin and judge failures abort validation with an error; twins already
// started are still stopped.
func Validate(ctx context.Context, cfg Config, scenarios []Scenario, h Harness) (Result, error) {
	twins := h.Twins
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	res := Result{Threshold: cfg.Threshold, History: cfg.History.clone()}
	if len(scenarios) == 0 {
		res.Skipped, res.Passed = true, true
		res.SkipReason = "no scenario exercises what the change touches"
		return res, nil
	}
	if h.Sim == nil {
		return Result{}, errors.New("scenario validation: no simulator configured")
	}
	for _, sc := range scenarios {
		if sc.Twin == "" {
			continue
		}
		if _, ok := twins.Defs[sc.Twin]; !ok {
			return Result{}, fmt.Errorf("scenario %s (%s): twin %q is not registered in the twins directory", sc.ID, sc.File, sc.Twin)
		}
		if twins.Runner == nil {
			return Result{}, fmt.Errorf("scenario %s: twin %q needs a twin runner, none configured", sc.ID, sc.Twin)
		}
	}
	for _, sc := range scenarios {
		sr, warn, err := runScenario(ctx, cfg, sc, h)
		if err != nil {
			return Result{}, err
		}
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
		outcomes := make([]bool, len(sr.Runs))
		for i, run := range sr.Runs {
			outcomes[i] = run.Satisfied
			for _, f := range run.Failure {
				if f.Passed && !f.Skipped {
					res.FailureHits = append(res.FailureHits, describeHit(sc.ID, run.Index, sr.Trajectories, f))
				}
			}
		}
		res.History.record(sc.ID, outcomes)
		sr.Trust = res.History.Trust(sc.ID)
		res.Satisfied += sr.Satisfied
		res.Total += sr.Trajectories
		res.Scenarios = append(res.Scenarios, sr)
	}
	res.Overall = float64(res.Satisfied) / float64(res.Total)
	res.Passed = res.Overall >= res.Threshold && len(res.FailureHits) == 0
	return res, nil
}

func describeHit(id string, index, total int, f CriterionResult) string {
	s := fmt.Sprintf("%s trajectory %d/%d: failure criterion %s hit: %s", id, index, total, f.Check, f.Reason)
	if f.Message != "" {
		s += fmt.Sprintf(" (%s)", f.Message)
	}
	return s
}

// runScenario executes one scenario's trajectories with its twin, if any.
// warn reports a twin that failed to stop after an otherwise clean run.
func runScenario(ctx context.Context, cfg Config, sc Scenario, h Harness) (sr Outcome, warn string, err error) {
	n := sc.Trajectories
	if n <= 0 {
		n = cfg.DefaultTrajectories
	}
	sr = Outcome{ID: sc.ID, Trajectories: n}
	run := scenarioRun{sc: sc, n: n, h: h}
	if sc.Twin != "" {
		tw := &twinSession{runner: h.Twins.Runner, twin: h.Twins.Defs[sc.Twin], scenario: sc.ID}
		run.tw = tw
		defer func() { warn, err = tw.stop(ctx, warn, err) }()
		if err := tw.start(ctx); err != nil {
			return sr, "", err
		}
	}
	var tally failureTally
	for i := 1; i <= n; i++ {
		tr, obs, err := run.trajectory(ctx, i)
		if err != nil {
			return sr, "", err
		}
		if tr.Satisfied {
			sr.Satisfied++
		} else {
			tally.add(i, tr, obs)
		}
		sr.Runs = append(sr.Runs, tr)
	}
	sr.Score = float64(sr.Satisfied) / float64(n)
	sr.Failures = tally.lines(n)
	sr.FailedTests = slices.Sorted(maps.Keys(tally.failing))
	return sr, "", nil
}

// twinSession is a scenario's twin from start to stop.
type twinSession struct {
	runner   TwinRunner
	twin     Twin
	scenario string
}

// start starts the twin and waits until it is ready.
func (s *twinSession) start(ctx context.Context) error {
	if err := s.runner.Start(ctx, s.twin); err != nil {
		return fmt.Errorf("scenario %s: start twin %s: %w", s.scenario, s.twin.Name, err)
	}
	if err := s.runner.Ready(ctx, s.twin); err != nil {
		return fmt.Errorf("scenario %s: twin %s not ready: %w", s.scenario, s.twin.Name, err)
	}
	return nil
}

// reset gives trajectory i (from the second on) a fresh twin.
func (s *twinSession) reset(ctx context.Context, i int) error {
	if err := s.runner.Reset(ctx, s.twin); err != nil {
		return fmt.Errorf("scenario %s: reset twin %s before trajectory %d: %w", s.scenario, s.twin.Name, i, err)
	}
	return nil
}

// stop stops the twin even when ctx is done. A stop failure joins the
// run's error, or becomes a warning after an otherwise clean run.
func (s *twinSession) stop(ctx context.Context, warn string, err error) (string, error) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	stopErr := s.runner.Stop(stopCtx, s.twin)
	switch {
	case stopErr == nil:
		return warn, err
	case err != nil:
		return warn, errors.Join(err, fmt.Errorf("scenario %s: %w", s.scenario, stopErr))
	}
	return fmt.Sprintf("scenario %s: %v", s.scenario, stopErr), nil
}

// scenarioRun is one scenario's trajectories under way.
type scenarioRun struct {
	sc Scenario
	// n is the number of trajectories.
	n int
	h Harness
	// tw is the scenario's started twin; nil: it has none.
	tw *twinSession
}

// trajectory runs and evaluates trajectory i of r.n.
func (r scenarioRun) trajectory(ctx context.Context, i int) (TrajectoryResult, Observation, error) {
	sc := r.sc
	if r.tw != nil && i > 1 {
		if err := r.tw.reset(ctx, i); err != nil {
			return TrajectoryResult{}, Observation{}, err
		}
	}
	obs, err := r.h.Sim.Simulate(ctx, newRun(sc.Run))
	if err != nil {
		return TrajectoryResult{}, Observation{}, fmt.Errorf("scenario %s: trajectory %d/%d: simulate: %w", sc.ID, i, r.n, err)
	}
	tr, err := evaluateTrajectory(ctx, sc, i, obs, r.h.Judge)
	return tr, obs, err
}

// failureTally groups the failed acceptance criteria of unsatisfied
// trajectories (in first-seen order, with the trajectories that hit each)
// and collects their failing tests.
type failureTally struct {
	order   []failureKey
	where   map[failureKey][]string
	failing map[string]bool
}

type failureKey struct{ check, message, reason string }

// add records unsatisfied trajectory i.
func (f *failureTally) add(i int, tr TrajectoryResult, obs Observation) {
	if f.where == nil {
		f.where, f.failing = map[failureKey][]string{}, map[string]bool{}
	}
	for _, c := range tr.Acceptance {
		if c.Passed {
			continue
		}
		k := failureKey{c.Check, c.Message, c.Reason}
		if _, seen := f.where[k]; !seen {
			f.order = append(f.order, k)
		}
		f.where[k] = append(f.where[k], fmt.Sprint(i))
	}
	for _, t := range obs.Tests {
		if !t.Passed {
			f.failing[t.Name] = true
		}
	}
}

// lines renders one line per failed criterion: "check (message): reason —
// trajectories 2, 5 of n".
func (f *failureTally) lines(n int) []string {
	var out []string
	for _, k := range f.order {
		line := k.check
		if k.message != "" {
			line += fmt.Sprintf(" (%s)", k.message)
		}
		noun := "trajectories"
		if len(f.where[k]) == 1 {
			noun = "trajectory"
		}
		out = append(out, fmt.Sprintf("%s: %s — %s %s of %d", line, k.reason, noun, strings.Join(f.where[k], ", "), n))
	}
	return out
}

// newRun builds a fresh simulator request so no trajectory can see another's
// mutations.
func newRun(spec RunSpec) Run {
	run := Run{Packages: slices.Clone(spec.Packages), Filter: spec.Filter, Overlay: make(map[string]string, len(spec.Overlay))}
	for _, o := range spec.Overlay {
		run.Overlay[o.To] = o.Content
	}
	return run
}

// testVerdictCheck names the acceptance result a trajectory gets when its
// run's tests prove nothing (Observation.Problems).
const testVerdictCheck = "test_verdict"

func evaluateTrajectory(ctx context.Context, sc Scenario, index int, obs Observation, judge Judge) (TrajectoryResult, error) {
	tr := TrajectoryResult{Index: index, Satisfied: true, ExitCode: obs.ExitCode, Duration: obs.Duration}
	if len(obs.Problems) > 0 {
		tr.Satisfied = false
		tr.Acceptance = append(tr.Acceptance, CriterionResult{Check: testVerdictCheck, Reason: strings.Join(obs.Problems, "; ")})
	}
	for i, c := range sc.Acceptance {
		r, err := Evaluate(ctx, c, obs, judge)
		if err != nil {
			return tr, fmt.Errorf("scenario %s: trajectory %d: acceptance[%d]: %w", sc.ID, index, i, err)
		}
		tr.Satisfied = tr.Satisfied && r.Passed
		tr.Acceptance = append(tr.Acceptance, r)
	}
	for i, c := range sc.Failure {
		r, err := Evaluate(ctx, c, obs, judge)
		if err != nil {
			return tr, fmt.Errorf("scenario %s: trajectory %d: failure[%d]: %w", sc.ID, index, i, err)
		}
		tr.Failure = append(tr.Failure, r)
	}
	return tr, nil
}
