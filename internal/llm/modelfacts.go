package llm

import "time"

// ModelFacts is what the table says about model (the built-in table when
// table is nil), refusing a model past its retirement date before any
// request is sent. Unknown models get the zero ModelInfo: local servers
// run anything, and hosted ones were checked when the run was wired.
func ModelFacts(table *ModelTable, model string, now func() time.Time) (ModelInfo, error) {
	t := ModelTable{}
	if table != nil {
		t = *table
	} else if b, err := BuiltinModelTable(); err == nil {
		t = b
	}
	if now == nil {
		now = time.Now
	}
	if _, err := t.Retirement(model, now()); err != nil {
		return ModelInfo{}, err
	}
	info, _ := t.Lookup(model)
	return info, nil
}
