// One provider call as the gateway makes it: the budget checked first,
// transient failures retried with backoff, every answer priced and
// recorded, secrets kept out of errors.

package llm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/internal/retry"
)

// complete sends req with budget checks and transient retries, recording
// every answered attempt in the ledger and in rec.
func (g *Gateway) complete(ctx context.Context, req Request, rec *CallRecord) (Response, error) {
	retries := g.TransientRetries
	if retries == 0 {
		retries = DefaultTransientRetries
	}
	for attempt := 0; ; attempt++ {
		if err := g.checkBudget(req, rec); err != nil {
			return Response{}, err
		}
		start := g.now()
		resp, err := g.Provider.Complete(ctx, req)
		err = g.redactError(err)
		rec.LatencyMS += g.now().Sub(start).Milliseconds()
		rec.Attempts++
		if resp.Model != "" {
			rec.Model = resp.Model
		}
		g.record(resp, req.Model, rec)
		var pe *ProviderError
		if err == nil || !errors.As(err, &pe) || !pe.Transient() {
			return resp, err
		}
		if pe.Sent {
			// Sent and then lost: the provider may have billed it. The
			// next invocation may try again, within its budget.
			return resp, err
		}
		if attempt >= retries {
			return resp, fmt.Errorf("giving up after %d attempts: %w", attempt+1, err)
		}
		delay, err := g.retryDelay(attempt, pe)
		if err != nil {
			return resp, err
		}
		if err := g.sleep(ctx, delay); err != nil {
			return resp, fmt.Errorf("waiting to retry: %w", err)
		}
	}
}

// checkBudget refuses the request when spent + estimate exceeds a bound.
func (g *Gateway) checkBudget(req Request, rec *CallRecord) error {
	spentTok, spentUSD := g.Ledger.Spent()
	inEst := EstimateRequestTokens(req)
	estTok := inEst + req.MaxTokens
	b := g.Budget
	if b.MaxTokens > 0 && spentTok+estTok > b.MaxTokens {
		return &BudgetExceededError{Stage: rec.Stage, SWI: rec.SWI, Unit: UnitTokens,
			Spent: float64(spentTok), Estimated: float64(estTok), Limit: float64(b.MaxTokens)}
	}
	// Without a price the dollar bound cannot be checked; the token bound
	// above still holds (the wiring warns about the unpriced model).
	if _, priced := b.Price(req.Model); b.MaxCostUSD > 0 && priced {
		estUSD := b.Cost(req.Model, inEst, req.MaxTokens)
		if spentUSD+estUSD > b.MaxCostUSD {
			return &BudgetExceededError{Stage: rec.Stage, SWI: rec.SWI, Unit: UnitUSD,
				Spent: spentUSD, Estimated: estUSD, Limit: b.MaxCostUSD}
		}
	}
	return nil
}

// record books an answered attempt's usage and notes crossed warning
// thresholds.
func (g *Gateway) record(resp Response, model string, rec *CallRecord) {
	if resp.InputTokens == 0 && resp.OutputTokens == 0 {
		return
	}
	// Price by the model that answered when it has a price (a dated
	// snapshot of the requested family), else by the requested one.
	if _, ok := g.Budget.Price(resp.Model); ok || (resp.Model != "" && model == "") {
		model = resp.Model
	}
	beforeTok, beforeUSD := g.Ledger.Spent()
	u := Usage{Model: model, InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens,
		CacheReadTokens: resp.CacheReadTokens, CacheWriteTokens: resp.CacheWriteTokens}
	u.CostUSD = g.Budget.UsageCost(u)
	g.Ledger.Record(rec.Stage, rec.SWI, u)
	_, priced := g.Budget.Price(model)
	rec.Unpriced = !priced
	if g.Observer != nil {
		g.Observer.LLMUsage(rec.Stage, u)
	}
	afterTok, afterUSD := g.Ledger.Spent()
	rec.InputTokens += u.InputTokens
	rec.OutputTokens += u.OutputTokens
	rec.CacheReadTokens += u.CacheReadTokens
	rec.CacheWriteTokens += u.CacheWriteTokens
	rec.CostUSD += u.CostUSD
	before := g.Budget.fraction(beforeTok, beforeUSD)
	after := g.Budget.fraction(afterTok, afterUSD)
	for _, t := range []int{90, 75} {
		if before < float64(t)/100 && after >= float64(t)/100 && t > rec.BudgetWarning {
			rec.BudgetWarning = t
			break
		}
	}
}

// retryDelay is Retry-After when the server sent one, else jittered
// exponential backoff; a Retry-After over MaxRetryAfter fails the call.
func (g *Gateway) retryDelay(attempt int, pe *ProviderError) (time.Duration, error) {
	backoff := retry.Backoff{
		Base:   firstPositiveDur(g.BaseBackoff, DefaultBaseBackoff),
		Max:    firstPositiveDur(g.MaxBackoff, DefaultMaxBackoff),
		Jitter: g.Jitter,
	}
	d, err := retry.Wait(backoff, attempt, pe.RetryAfter, pe.RetryAfter > 0, firstPositiveDur(g.MaxRetryAfter, DefaultMaxRetryAfter))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", err, pe)
	}
	return d, nil
}

func (g *Gateway) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	return retry.Sleep(ctx, d)
}

// redactedError is a provider error whose text went through the
// gateway's redaction: a provider's 401 may quote the API key, and a
// net/http error the URL holding it. Errors wrapped inside stay
// reachable with errors.As for the retry decision.
type redactedError struct {
	err    error
	redact func(string) string
}

func (e *redactedError) Error() string { return e.redact(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }

// redactError makes err's text safe to show: in a comment, a log or the
// command's exit message.
func (g *Gateway) redactError(err error) error {
	if err == nil || g.Redact == nil {
		return err
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		pe.Message = g.Redact(pe.Message)
	}
	return &redactedError{err: err, redact: g.Redact}
}

func (g *Gateway) redact(s string) string {
	if g.Redact == nil {
		return s
	}
	return g.Redact(s)
}

func (g *Gateway) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

func firstPositiveDur(vs ...time.Duration) time.Duration {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
