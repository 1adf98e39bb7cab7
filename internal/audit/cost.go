package audit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/pipeline"
)

// CostSummary is the ledger and budgets a report shows as a cost table.
type CostSummary struct {
	Ledger pipeline.Ledger
	// SubWorkItems carry what each sub-work-item cost (SWI.Usage).
	SubWorkItems []pipeline.SWI
	BudgetTokens int     // 0 = no token budget
	BudgetUSD    float64 // 0 = no cost budget
}

// CostTable renders the ledger as a Markdown table: one row per stage (in
// pipeline order, unknown names after, sorted), one per SWI (sorted by
// id), the total, the budget and what remains. The total is the sum of
// the stage rows; SWI rows break down the per-SWI stages' spend and are
// not added again; a SWI that made no call has no row. A zero budget is
// shown as unlimited.
func CostTable(l pipeline.Ledger, swis []pipeline.SWI, budgetTokens int, budgetUSD float64) string {
	var b strings.Builder
	b.WriteString("| scope | calls | input tokens | output tokens | total tokens | cost (USD) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	row := func(scope string, u pipeline.Usage) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", scope, thousands(u.Calls), thousands(u.InputTokens),
			thousands(u.OutputTokens), thousands(u.InputTokens+u.OutputTokens), usd(u.CostUSD))
	}
	var total pipeline.Usage
	for _, name := range stageKeys(l.PerStage) {
		u := l.PerStage[name]
		row("stage "+code(name), u)
		total.Calls += u.Calls
		total.InputTokens += u.InputTokens
		total.OutputTokens += u.OutputTokens
		total.CostUSD += u.CostUSD
	}
	costed := make([]pipeline.SWI, 0, len(swis))
	for _, w := range swis {
		if w.Usage != (pipeline.Usage{}) {
			costed = append(costed, w)
		}
	}
	slices.SortStableFunc(costed, func(a, b pipeline.SWI) int { return strings.Compare(a.ID, b.ID) })
	for _, w := range costed {
		row("SWI "+code(w.ID), w.Usage)
	}
	fmt.Fprintf(&b, "| **total** | **%s** | **%s** | **%s** | **%s** | **%s** |\n", thousands(total.Calls),
		thousands(total.InputTokens), thousands(total.OutputTokens), thousands(total.InputTokens+total.OutputTokens), usd(total.CostUSD))

	used := total.InputTokens + total.OutputTokens
	budgetTok, remainTok := "unlimited", "—"
	if budgetTokens > 0 {
		budgetTok = thousands(budgetTokens)
		remainTok = remaining(float64(budgetTokens-used), float64(budgetTokens), func(v float64) string { return thousands(int(v)) })
	}
	budgetCost, remainCost := "unlimited", "—"
	if budgetUSD > 0 {
		budgetCost = usd(budgetUSD)
		remainCost = remaining(budgetUSD-total.CostUSD, budgetUSD, usd)
	}
	fmt.Fprintf(&b, "| budget | | | | %s | %s |\n", budgetTok, budgetCost)
	fmt.Fprintf(&b, "| remaining | | | | %s | %s |\n", remainTok, remainCost)
	return b.String()
}

// remaining renders what is left of a budget with the share left, or the
// overrun.
func remaining(left, budget float64, format func(float64) string) string {
	if left < 0 {
		return format(-left) + " over budget ⚠️"
	}
	return fmt.Sprintf("%s (%.1f%%)", format(left), 100*left/budget)
}

// stageKeys orders ledger stage names in pipeline order, unknown ones last.
func stageKeys(m map[string]pipeline.Usage) []string {
	var keys []string
	for _, st := range pipeline.AllStages() {
		if _, ok := m[string(st)]; ok {
			keys = append(keys, string(st))
		}
	}
	for _, k := range mapKeys(m) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func usd(v float64) string { return fmt.Sprintf("$%.4f", v) }

// thousands writes n with comma separators: 1234567 ⇒ "1,234,567".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// code renders untrusted s as inline code, safe inside a table cell.
func code(s string) string {
	s = Untrusted(strings.NewReplacer("`", "'", "|", `\|`, "\n", " ", "\r", " ").Replace(s))
	if s == "" {
		return "—"
	}
	return "`" + s + "`"
}

// cell makes untrusted s safe inside a Markdown table cell.
func cell(s string) string {
	s = Untrusted(strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(strings.TrimSpace(s)))
	if s == "" {
		return "—"
	}
	return s
}
