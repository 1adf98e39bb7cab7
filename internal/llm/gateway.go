package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/audit"
)

// Renderer renders a named prompt template into a system and a user
// prompt. prompts.Set implements it.
type Renderer interface {
	Render(name string, vars map[string]any) (system, user string, err error)
}

// Defaults applied by NewGateway and to zero fields of a Gateway.
const (
	DefaultMaxTokens        = 8192
	DefaultSchemaRetries    = 3
	DefaultTransientRetries = 4
	DefaultBaseBackoff      = time.Second
	DefaultMaxBackoff       = 30 * time.Second
	DefaultMaxRetryAfter    = 2 * time.Minute
	DefaultHTTPTimeout      = 5 * time.Minute
)

// Gateway is the single way CogWorks talks to an LLM: it renders the
// prompt, redacts it, checks the budget, calls the provider with transient
// retries, validates the answer against the schema generated from the
// output type with feedback retries, records usage in the ledger and
// returns an audit CallRecord. A Gateway is safe for concurrent use once
// configured; do not change its fields while calls are in flight.
type Gateway struct {
	Provider Provider
	Prompts  Renderer
	Ledger   Ledger
	Budget   Budget
	// Model is passed to the provider and used for pricing ("" lets the
	// provider choose its default).
	Model string
	// MaxTokens bounds each answer.
	MaxTokens int
	// OutputLimit is the model's own output ceiling (from the model
	// table); a truncated answer is asked for again with up to this many
	// tokens. 0 means unknown: the limit is then doubled at most.
	OutputLimit int
	// SchemaRetries is how many times an invalid answer is sent back with
	// the validator's messages before giving up.
	SchemaRetries int
	// TransientRetries is how many times a transient provider failure is
	// retried (with jittered exponential backoff) per request.
	TransientRetries int
	// BaseBackoff and MaxBackoff shape the exponential backoff.
	BaseBackoff, MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the gateway waits for; a
	// longer one fails the call so the next invocation can try again.
	MaxRetryAfter time.Duration
	// Redact runs over every text sent to the provider (secrets removal).
	Redact func(string) string
	// Sleep waits between retries; tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter maps a backoff delay to the delay actually waited.
	Jitter func(d time.Duration) time.Duration
	// Now is the clock used for latency.
	Now func() time.Time
	// Observer, when set, is told about every answered provider call
	// (metrics); nil observes nothing.
	Observer UsageObserver

	schemas schemaCache
}

// NewGateway returns a gateway with default limits, an in-memory ledger and
// no budget bound.
func NewGateway(p Provider, r Renderer) *Gateway {
	return &Gateway{Provider: p, Prompts: r, Ledger: NewMemoryLedger(0, 0)}
}

// Validate reports a gateway that cannot make calls.
func (g *Gateway) Validate() error {
	switch {
	case g.Provider == nil:
		return errors.New("llm gateway: no provider configured")
	case g.Prompts == nil:
		return errors.New("llm gateway: no prompt renderer configured")
	case g.Ledger == nil:
		return errors.New("llm gateway: no ledger configured")
	case g.MaxTokens < 0 || g.SchemaRetries < 0 || g.TransientRetries < 0:
		return errors.New("llm gateway: negative limits")
	}
	return nil
}

// Call describes one structured LLM call.
type Call struct {
	Stage string
	SWI   string
	// Template is the prompt template's name; Vars its variables.
	Template string
	Vars     map[string]any
	// SchemaName overrides the schema name derived from the output type.
	SchemaName string
	// MaxTokens and Model override the gateway's defaults when set.
	MaxTokens int
	Model     string
}

// CallRecord is the audit record of one Structured call, returned on
// success and failure alike.
type CallRecord struct {
	Stage, SWI, Template string
	Model                string
	// InputHash is the hex sha256 of the rendered, redacted prompt.
	InputHash    string
	InputTokens  int
	OutputTokens int
	CostUSD      float64
	LatencyMS    int64
	// Attempts counts provider requests; SchemaRetries counts answers sent
	// back for violating the schema; Truncations answers cut off at the
	// output limit (at most one is asked for again).
	Attempts      int
	SchemaRetries int
	Truncations   int
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens
	// read from and written to the provider's prompt cache.
	CacheReadTokens  int
	CacheWriteTokens int
	// BudgetWarning is 75 or 90 when this call pushed the pipeline's spend
	// past that percentage of its budget, else 0.
	BudgetWarning int
	// Unpriced is set when the model has no price: CostUSD is 0 and only
	// the token budget was enforced.
	Unpriced bool
}

// Structured renders call.Template, asks the provider for an answer that
// matches the JSON Schema generated from out's type, and decodes the valid
// answer into out, which must be a non-nil pointer to a struct
// (ASSERT-SCHEMA-002). A schema-violating or malformed answer is sent back
// with the validator's messages (JSON pointer paths) appended to the
// conversation, up to SchemaRetries times (ASSERT-SCHEMA-001). Before every
// provider request the budget is checked; a refusal is a
// *BudgetExceededError and no request is sent (ASSERT-CODE-005).
//
// Every call, answered or refused, is recorded as an audit event in the
// step's event log carried by ctx (audit.WithEvents).
func (g *Gateway) Structured(ctx context.Context, call Call, out any) (CallRecord, error) {
	rec, err := g.structured(ctx, call, out)
	audit.Record(ctx, callEvent(rec, err))
	return rec, err
}

// callEvent summarises a call for the audit trail: model, input hash,
// tokens, latency and the outcome — never the prompt itself.
func callEvent(rec CallRecord, err error) audit.Event {
	hash := rec.InputHash
	if len(hash) > 12 {
		hash = hash[:12]
	}
	summary := fmt.Sprintf("LLM %s · model %s · input %s · %d in / %d out tokens · %d ms · %d request(s), %d schema retr(ies)",
		rec.Template, rec.Model, hash, rec.InputTokens, rec.OutputTokens, rec.LatencyMS, rec.Attempts, rec.SchemaRetries)
	if rec.CacheReadTokens > 0 || rec.CacheWriteTokens > 0 {
		summary += fmt.Sprintf(" · cache %d read / %d written", rec.CacheReadTokens, rec.CacheWriteTokens)
	}
	if rec.Truncations > 0 {
		summary += fmt.Sprintf(" · %d truncated answer(s)", rec.Truncations)
	}
	if rec.Unpriced {
		summary += fmt.Sprintf(" · no price for model %s: cost not counted, token budget only", rec.Model)
	} else if rec.CostUSD > 0 {
		summary += fmt.Sprintf(" · $%.4f", rec.CostUSD)
	}
	if err != nil {
		summary += " · failed: " + err.Error()
	}
	return audit.Event{Kind: audit.KindLLMCall, Stage: rec.Stage, SWI: rec.SWI, Summary: summary}
}

func (g *Gateway) structured(ctx context.Context, call Call, out any) (CallRecord, error) {
	rec := CallRecord{Stage: call.Stage, SWI: call.SWI, Template: call.Template}
	if err := g.Validate(); err != nil {
		return rec, err
	}
	rv := reflect.ValueOf(out)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return rec, fmt.Errorf("llm call %s: output must be a non-nil pointer, got %T", call.Template, out)
	}
	schema, err := g.schemas.get(rv.Type())
	if err != nil {
		return rec, fmt.Errorf("llm call %s: %w", call.Template, err)
	}
	schemaName := schema.Name
	if call.SchemaName != "" {
		schemaName = call.SchemaName
	}
	system, user, err := g.Prompts.Render(call.Template, call.Vars)
	if err != nil {
		return rec, fmt.Errorf("llm call %s: render prompt: %w", call.Template, err)
	}
	system, user = g.redact(system), g.redact(user)
	user, cacheBreak := splitCacheBreak(user)
	sum := sha256.Sum256([]byte(system + "\x00" + user))
	rec.InputHash = hex.EncodeToString(sum[:])

	req := Request{
		System:     system,
		Messages:   []Message{{Role: RoleUser, Content: user, CacheBreak: cacheBreak}},
		Schema:     schema.JSON,
		SchemaName: schemaName,
		MaxTokens:  firstPositive(call.MaxTokens, g.MaxTokens, DefaultMaxTokens),
		Model:      firstNonEmpty(call.Model, g.Model),
		Template:   call.Template,
		// The system prompt and schema are the stable prefix of every call
		// of a template.
		CacheKey: "cogworks-" + call.Template + "-" + schemaName,
	}
	rec.Model = req.Model
	_, priced := g.Budget.Price(req.Model)
	rec.Unpriced = !priced
	schemaRetries := g.SchemaRetries
	if schemaRetries == 0 {
		schemaRetries = DefaultSchemaRetries
	}
	for {
		resp, err := g.complete(ctx, req, &rec)
		if err == nil && resp.Stop == StopRefused {
			return rec, fmt.Errorf("llm call %s (stage %s): %w", call.Template, call.Stage,
				&RefusalError{Template: call.Template, Model: rec.Model, Text: resp.Refusal})
		}
		if err == nil && resp.Stop == StopTruncated {
			if rec.Truncations > 0 {
				return rec, fmt.Errorf("llm call %s (stage %s): %w", call.Template, call.Stage,
					&TruncatedError{Template: call.Template, Model: rec.Model, MaxTokens: req.MaxTokens})
			}
			rec.Truncations++
			req = g.askAgainAfterTruncation(req)
			continue
		}
		var verr error
		var raw string
		var me *MalformedError
		switch {
		case err == nil:
			raw = string(resp.Content)
			verr = schema.Validate(resp.Content)
		case errors.As(err, &me):
			raw = me.Raw
			verr = &SchemaError{Schema: schemaName, Violations: []Violation{{Message: me.Reason}}}
		default:
			return rec, fmt.Errorf("llm call %s (stage %s): %w", call.Template, call.Stage, err)
		}
		if verr == nil {
			if err := json.Unmarshal(resp.Content, out); err != nil {
				return rec, fmt.Errorf("llm call %s: decode valid answer into %T: %w", call.Template, out, err)
			}
			return rec, nil
		}
		var se *SchemaError
		if !errors.As(verr, &se) {
			return rec, fmt.Errorf("llm call %s: %w", call.Template, verr)
		}
		se.Schema = schemaName
		if rec.SchemaRetries >= schemaRetries {
			return rec, fmt.Errorf("llm call %s (stage %s): answer still invalid after %d schema retries: %w",
				call.Template, call.Stage, rec.SchemaRetries, se)
		}
		rec.SchemaRetries++
		if strings.TrimSpace(raw) == "" {
			raw = "(no usable answer)"
		}
		req.Messages = append(req.Messages,
			Message{Role: RoleAssistant, Content: g.redact(raw)},
			Message{Role: RoleUser, Content: SchemaFeedback(se)},
		)
	}
}

// askAgainAfterTruncation is the one extra request a truncated answer
// gets: a larger output limit when the model allows one, and an
// instruction to answer completely but more briefly. Continuing the cut
// answer is not possible with forced structured output (the partial
// object is not a valid tool call), so the answer is asked for again.
func (g *Gateway) askAgainAfterTruncation(req Request) Request {
	cut := req.MaxTokens
	raised := cut * 2
	if g.OutputLimit > 0 {
		raised = min(raised, g.OutputLimit)
	}
	req.MaxTokens = max(raised, cut)
	msgs := append([]Message(nil), req.Messages...)
	last := &msgs[len(msgs)-1]
	last.Content += fmt.Sprintf("\n\nYour previous answer was cut off at the output limit of %d tokens. "+
		"Answer again with the complete object, as briefly as the task allows: short prose fields, "+
		"no repeated or unchanged content.", cut)
	req.Messages = msgs
	return req
}

// SchemaFeedback is the message appended to the conversation after an
// invalid answer: every violation with its JSON pointer path.
func SchemaFeedback(se *SchemaError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your previous answer did not match the required JSON schema %q.\n", se.Schema)
	b.WriteString("Fix every problem below and answer again with the complete corrected object:\n")
	for _, v := range se.Violations {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	return b.String()
}

// RenderFunc adapts a function to the Renderer port.
type RenderFunc func(name string, vars map[string]any) (system, user string, err error)

// Render implements Renderer.
func (f RenderFunc) Render(name string, vars map[string]any) (string, string, error) {
	return f(name, vars)
}
