package llm

// BuiltinPrices returns the prices (USD per million tokens, standard tier)
// of every model in the built-in table, keyed by model id. A fresh map is
// returned on every call, so callers may add to it. The embedded table is
// checked by tests, so a parse failure cannot ship; it would yield an empty
// map (every model unpriced, token budget only) rather than a panic.
func BuiltinPrices() map[string]Price {
	t, err := BuiltinModelTable()
	if err != nil {
		return map[string]Price{}
	}
	return t.Prices()
}

// LookupPrice finds model in prices: the exact id, else without a provider
// prefix, else without its snapshot date (claude-sonnet-4-5-20250929 is
// priced as claude-sonnet-4-5). It never falls back to a shorter family
// name: that priced claude-opus-4-6 as claude-opus-4, at three times its
// price.
func LookupPrice(prices map[string]Price, model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	for _, name := range lookupNames(model) {
		if p, ok := prices[name]; ok {
			return p, true
		}
	}
	return Price{}, false
}
