package llm

import "strings"

// PricesAsOf is when the built-in prices were taken. They were written from
// the providers' published list prices as known to the author on that date,
// without network access to re-check them: check Anthropic's and OpenAI's
// pricing pages and override with [llm] input_price_per_mtok and
// output_price_per_mtok when they differ.
const PricesAsOf = "2025-11-01"

// BuiltinPrices returns the built-in list prices (USD per million tokens,
// standard tier, no batch or cache discounts) of current Anthropic and
// OpenAI models, keyed by model name without date suffix. A fresh map is
// returned on every call, so callers may add to it.
func BuiltinPrices() map[string]Price {
	return map[string]Price{
		// Anthropic
		"claude-opus-4-5":   {InputPerMTok: 5, OutputPerMTok: 25},
		"claude-opus-4-1":   {InputPerMTok: 15, OutputPerMTok: 75},
		"claude-opus-4":     {InputPerMTok: 15, OutputPerMTok: 75},
		"claude-sonnet-4-5": {InputPerMTok: 3, OutputPerMTok: 15},
		"claude-sonnet-4":   {InputPerMTok: 3, OutputPerMTok: 15},
		"claude-3-7-sonnet": {InputPerMTok: 3, OutputPerMTok: 15},
		"claude-haiku-4-5":  {InputPerMTok: 1, OutputPerMTok: 5},
		"claude-3-5-haiku":  {InputPerMTok: 0.80, OutputPerMTok: 4},
		"claude-3-haiku":    {InputPerMTok: 0.25, OutputPerMTok: 1.25},
		// OpenAI
		"gpt-5":        {InputPerMTok: 1.25, OutputPerMTok: 10},
		"gpt-5-mini":   {InputPerMTok: 0.25, OutputPerMTok: 2},
		"gpt-5-nano":   {InputPerMTok: 0.05, OutputPerMTok: 0.40},
		"gpt-4.1":      {InputPerMTok: 2, OutputPerMTok: 8},
		"gpt-4.1-mini": {InputPerMTok: 0.40, OutputPerMTok: 1.60},
		"gpt-4.1-nano": {InputPerMTok: 0.10, OutputPerMTok: 0.40},
		"gpt-4o":       {InputPerMTok: 2.50, OutputPerMTok: 10},
		"gpt-4o-mini":  {InputPerMTok: 0.15, OutputPerMTok: 0.60},
		"o3":           {InputPerMTok: 2, OutputPerMTok: 8},
		"o3-mini":      {InputPerMTok: 1.10, OutputPerMTok: 4.40},
		"o4-mini":      {InputPerMTok: 1.10, OutputPerMTok: 4.40},
	}
}

// LookupPrice finds model in prices: the exact name, else the longest name
// that model extends with "-…", so dated snapshots such as
// claude-sonnet-4-5-20250929 or gpt-4o-2024-08-06 get their family's price
// (and gpt-4o-mini-… is not priced as gpt-4o).
func LookupPrice(prices map[string]Price, model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range prices {
		if strings.HasPrefix(model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	if !found {
		return Price{}, false
	}
	return prices[best], true
}
