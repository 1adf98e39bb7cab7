package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// GitHub is what the step function needs from GitHub.
type GitHub interface {
	GetIssue(ctx context.Context, repo github.Repo, number int) (github.Issue, error)
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
	CreateComment(ctx context.Context, repo github.Repo, number int, body string) (github.Comment, error)
	EditComment(ctx context.Context, repo github.Repo, id int64, body string) (github.Comment, error)
	DeleteComment(ctx context.Context, repo github.Repo, id int64) error
	AddLabels(ctx context.Context, repo github.Repo, number int, labels ...string) error
	SetLabels(ctx context.Context, repo github.Repo, number int, labels []string) ([]string, error)
	RemoveLabel(ctx context.Context, repo github.Repo, number int, label string) error
	ListRepoLabels(ctx context.Context, repo github.Repo) ([]github.Label, error)
	CreateRepoLabel(ctx context.Context, repo github.Repo, label github.Label) error
	ListIssueEvents(ctx context.Context, repo github.Repo, number int) ([]github.IssueEvent, error)
	CollaboratorPermission(ctx context.Context, repo github.Repo, user string) (string, error)
	// CreateReaction acknowledges a comment command (eyes, +1, confused).
	CreateReaction(ctx context.Context, repo github.Repo, commentID int64, content string) error
	GetPull(ctx context.Context, repo github.Repo, number int) (github.PullRequest, error)
}

// StageExecutor runs one logical action of a stage. It reads in.Snapshot
// and returns what it decided — the event for the machine and the
// snapshot changes (StageResult.Changes) — and must make its own GitHub
// writes idempotent; the engine applies the changes, owns CurrentSWI,
// persists the snapshot and moves labels.
type StageExecutor interface {
	Execute(ctx context.Context, in StageInput) (StageResult, error)
}

// StageExecutorFunc adapts a function to StageExecutor.
type StageExecutorFunc func(ctx context.Context, in StageInput) (StageResult, error)

// Execute calls f.
func (f StageExecutorFunc) Execute(ctx context.Context, in StageInput) (StageResult, error) {
	return f(ctx, in)
}

// StageInput is what an executor gets.
type StageInput struct {
	Repo  github.Repo
	Issue github.Issue
	Stage pipeline.Stage
	// Snapshot is the work item's state to read: a copy (Snapshot.View),
	// so an executor cannot write the engine's; what it decides goes into
	// StageResult.Changes.
	Snapshot *pipeline.Snapshot
	Config   config.Config
	RunID    string
	Logger   *slog.Logger
	// BotLogin is CogWorks's own login: only comments and issues it wrote
	// count as state (idem's author argument).
	BotLogin string
	// Comments is the work item's comment list as the engine last read
	// it, so an executor need not list it again; nil means unknown.
	Comments []github.Comment
	// Ledger is the engine's book of Snapshot's cost ledger, where the
	// step's LLM calls are booked (see Book).
	Ledger *pipeline.LedgerBook
}

// Book is in.Ledger, or for an input built without the engine (a stage's
// own test) a book of in.Snapshot's ledger.
func (in StageInput) Book() *pipeline.LedgerBook {
	if in.Ledger != nil {
		return in.Ledger
	}
	return pipeline.NewLedgerBook(in.Snapshot)
}

// StageResult is an executor's report.
type StageResult struct {
	// Event is what happened: pipeline.EventDone, EventRemediate,
	// EventNextSWI, EventAllDone, or EventProgress (the zero value: the
	// stage has more to do). The machine's table, with its guards,
	// decides where it leads; an executor never names the next stage.
	Event pipeline.Event
	// Summary is a short human line for the status and stage-entry comments.
	Summary string
	// Warnings are shown in the status comment.
	Warnings []string
	// Changes are the snapshot changes the executor decided, applied in
	// order by the engine (pipeline.Snapshot.Apply) — also when Execute
	// returns an error, so a decision whose GitHub write was made (a
	// status label) is recorded with the failure.
	Changes []pipeline.Change
}

// RegistryValidator validates the interface registry before any stage runs
// (docs/spec.md §3 step 3, ASSERT-XDOM-001/002). A nil validator skips the check.
type RegistryValidator interface {
	ValidateRegistry(ctx context.Context) error
}

// Deps are the step function's ports and settings.
type Deps struct {
	GitHub    GitHub
	Executors map[pipeline.Stage]StageExecutor
	// Machine is the pipeline's transition table; nil means
	// pipeline.StateMachine(). A variant (a skipped stage) needs no
	// change to the engine or the executors. Each work item follows
	// this table without the stages its snapshot records as skipped
	// (Snapshot.Skipped, chosen after intake by [pipeline]
	// skip_design_for).
	Machine  *pipeline.Machine
	Registry RegistryValidator
	// Reviser runs revision cycles of the work items' PRs (Revise); nil
	// when revisions are not wired.
	Reviser PRReviser
	// CIReviser runs CI-feedback cycles of the work items' PRs
	// (ReviseCI); nil when CI feedback is not wired.
	CIReviser CIReviser
	// Restacker keeps the work items' stacks of PRs mergeable (Restack);
	// nil when restacks are not wired.
	Restacker Restacker
	// Design watches the design files the plan was made from and
	// re-plans on an amended one (design.go); nil when not wired.
	Design DesignWatcher
	Config config.Config
	// RunID identifies this invocation in lock claims.
	RunID string
	// BotLogin is CogWorks's own login. Only comments it wrote are state
	// (snapshot, status, lock claims, idempotency keys), only stage labels
	// it applied rebuild a lost snapshot, and its labels never approve.
	BotLogin string
	// StateKey signs and verifies state blocks and lock claims (package
	// statesig); nil signs and verifies nothing.
	StateKey statesig.Key
	Clock    func() time.Time
	Logger   *slog.Logger
	DryRun   bool
}

// Ref names the work item to step.
type Ref struct {
	Repo  github.Repo
	Issue int
	// CheckMerges makes wake_up look at a waiting gate's PR for a merge by
	// a human (costs one request); set for pull_request events and cron.
	CheckMerges bool
	// Known, when set, is the issue as an event payload or a search result
	// showed it. wake_up then takes the labels from it instead of reading
	// the issue, so an event for an issue without cogworks:run costs no
	// request. It is re-read when it shows the processing lock, which a
	// queued event may report long after the run that held it ended.
	Known *github.Issue
	// CommentEvent is set when the triggering event is a new comment that
	// mentions /cogworks: wake then reads the comments even on an issue
	// without cogworks:run, where a stopped pipeline waits for
	// /cogworks retry. With the label the comments are read anyway, so
	// this never adds a request there.
	CommentEvent bool
}

// StepOutcome is the outcome reported per step (docs/spec.md §3 JSON).
type StepOutcome string

// Step outcomes.
const (
	OutcomeAdvanced     StepOutcome = "advanced"
	OutcomeWaiting      StepOutcome = "waiting"
	OutcomeBackedOff    StepOutcome = "backed_off"
	OutcomeNotTriggered StepOutcome = "not_triggered"
	OutcomeComplete     StepOutcome = "complete"
	OutcomeFailed       StepOutcome = "failed"
	// OutcomeRetrying: a transient failure (GitHub or LLM outage); the
	// state stays at the stage and the next invocation tries again.
	OutcomeRetrying StepOutcome = "retrying"
)

// StepAction is what a step did, reported per step (docs/spec.md §3
// JSON): one of the engine's own actions below, or the pipeline.Action a
// run took (execute, pass_gate, retry), with " (dry run)" appended under
// --dry-run.
type StepAction string

// Step actions the engine reports besides pipeline.Action's.
const (
	// ActionWakeUp: the step stopped at wake_up (nothing to run, or an
	// error reading state).
	ActionWakeUp StepAction = "wake_up"
	// ActionLock: the step did not get, or lost, the work item's lock.
	ActionLock StepAction = "lock"
	// ActionCommands: the step answered /cogworks commands only.
	ActionCommands StepAction = "commands"
	// ActionRepairLabels: the step restored labels from the snapshot.
	ActionRepairLabels StepAction = "repair_labels"
	// ActionRefuseState: the step refused a snapshot it cannot trust.
	ActionRefuseState StepAction = "refuse_state"
	// ActionFail: the step failed the pipeline.
	ActionFail StepAction = "fail"
)

// StepActions lists every action a Result can carry, without the dry-run
// suffix.
func StepActions() []StepAction {
	return []StepAction{ActionWakeUp, ActionLock, ActionCommands, ActionRepairLabels, ActionRefuseState, ActionFail, ActionRevise,
		StepAction(pipeline.ActionExecute), StepAction(pipeline.ActionPassGate), StepAction(pipeline.ActionRetry)}
}

// Result is the report of one step.
type Result struct {
	Issue          int         `json:"issue"`
	Stage          string      `json:"stage"`
	Action         StepAction  `json:"action"`
	Outcome        StepOutcome `json:"outcome"`
	GitHubRequests int64       `json:"github_requests"`
	DurationMS     int64       `json:"duration_ms"`
	Reason         string      `json:"reason,omitempty"`
}

// Final reports whether no further step would make progress now.
func (r Result) Final() bool { return r.Outcome != OutcomeAdvanced }

// TransientError marks a failure that leaves pipeline state untouched so
// that the next run simply retries.
type TransientError struct{ Err error }

// Error implements error.
func (e *TransientError) Error() string { return "transient: " + e.Err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *TransientError) Unwrap() error { return e.Err }

// FailedError reports that the step failed the pipeline (escalation,
// unrecoverable error); the failure report is on the issue.
type FailedError struct {
	Stage  pipeline.Stage
	Reason string
	Err    error
}

// Error implements error.
func (e *FailedError) Error() string {
	return fmt.Sprintf("stage %s failed: %s", e.Stage, e.Reason)
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *FailedError) Unwrap() error { return e.Err }

func (d Deps) now() time.Time {
	if d.Clock != nil {
		return d.Clock().UTC()
	}
	return time.Now().UTC()
}

func (d Deps) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (d Deps) validate() error {
	var errs []error
	if d.GitHub == nil {
		errs = append(errs, errors.New("engine: Deps.GitHub is nil"))
	}
	if d.RunID == "" {
		errs = append(errs, errors.New("engine: Deps.RunID is empty"))
	}
	if d.BotLogin == "" {
		// Without it a forged comment could not be told from the bot's own.
		errs = append(errs, errors.New("engine: Deps.BotLogin is empty (the bot's own login is needed to trust only its comments)"))
	}
	if d.Machine != nil {
		if err := d.Machine.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("engine: Deps.Machine %s: %w", d.Machine.ID, err))
		}
	}
	return errors.Join(errs...)
}

// transient is the one interface by which an adapter says an error is an
// outage that a later invocation may get past: the GitHub client's
// APIError (5xx, 429), RateLimitError and NetworkError, the LLM gateway's
// ProviderError and a domain service's domain.Error implement it.
type transient interface{ Transient() bool }

// isTransient reports whether err should leave the pipeline state alone.
func isTransient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var te *TransientError
	if errors.As(err, &te) {
		return true
	}
	var t transient
	return errors.As(err, &t) && t.Transient()
}
