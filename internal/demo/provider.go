package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/internal/llm"
)

// Rule answers a request for Template whose prompt contains every string
// in When and none in Unless.
type Rule struct {
	Template string
	When     []string
	Unless   []string
	Answer   any
}

// RuleProvider is an offline llm.Provider whose answer is a deterministic
// function of the request: the first matching rule wins. Unlike a queue of
// canned answers, re-running a step (after a crash, say) gets the same
// answers again, just as the pipeline's idempotency expects of a model
// given the same context. A request no rule matches is an error, never a
// made-up answer.
type RuleProvider struct {
	Model string
	rules []Rule

	mu    sync.Mutex
	calls int
	// used counts the answers of each rule, by index.
	used map[int]int
}

// NewRuleProvider returns a provider answering by rules.
func NewRuleProvider(model string, rules []Rule) *RuleProvider {
	return &RuleProvider{Model: model, rules: rules}
}

// Calls reports how many requests were answered.
func (p *RuleProvider) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Complete implements llm.Provider.
func (p *RuleProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	var prompt strings.Builder
	prompt.WriteString(req.System)
	for _, m := range req.Messages {
		prompt.WriteString("\n")
		prompt.WriteString(m.Content)
	}
	text := prompt.String()
	for i, r := range p.rules {
		if r.Template != req.Template || !containsAll(text, r.When) || containsAny(text, r.Unless) {
			continue
		}
		content, err := json.Marshal(r.Answer)
		if err != nil {
			return llm.Response{}, fmt.Errorf("demo provider: encode answer for %s: %w", req.Template, err)
		}
		p.mu.Lock()
		p.calls++
		if p.used == nil {
			p.used = map[int]int{}
		}
		p.used[i]++
		p.mu.Unlock()
		return llm.Response{Content: content, InputTokens: llm.EstimateRequestTokens(req),
			OutputTokens: llm.EstimateTokens(string(content)), Model: p.Model}, nil
	}
	return llm.Response{}, fmt.Errorf("demo provider: no scripted answer for template %q with this prompt", req.Template)
}

// Answered reports how many requests for template were answered by a
// rule that requires when in the prompt.
func (p *RuleProvider) Answered(template, when string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for i, r := range p.rules {
		if r.Template == template && slices.Contains(r.When, when) {
			n += p.used[i]
		}
	}
	return n
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
