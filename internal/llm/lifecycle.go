package llm

import (
	"fmt"
	"time"
)

// RetiredModelError refuses a model past its provider's shutdown date:
// the provider would answer 404 or worse, and a retired alias may be
// silently served by another model at another price.
type RetiredModelError struct {
	Model       string
	Date        string // shutdown date, YYYY-MM-DD
	Replacement string
}

// Error implements error; it names the fix.
func (e *RetiredModelError) Error() string {
	fix := "choose a current model"
	if e.Replacement != "" {
		fix = fmt.Sprintf("switch to %s", e.Replacement)
	}
	return fmt.Sprintf("model %s was retired by its provider on %s: %s ([llm] model or COGWORKS_LLM_MODEL)", e.Model, e.Date, fix)
}

// Retirement checks model's shutdown date against now. A model past it is
// a *RetiredModelError; one with a date still ahead gets a warning naming
// the date and the replacement; a model without a date, or one the table
// does not know, gets neither (ModelError-style checks handle unknown
// models).
func (t ModelTable) Retirement(model string, now time.Time) (warning string, err error) {
	info, ok := t.Lookup(model)
	if !ok || info.DeprecationDate == "" {
		return "", nil
	}
	date, perr := time.Parse(time.DateOnly, info.DeprecationDate)
	if perr != nil {
		return fmt.Sprintf("model %s has an unreadable retirement date %q in %s", model, info.DeprecationDate, t.Source), nil
	}
	if !now.Before(date) {
		return "", &RetiredModelError{Model: model, Date: info.DeprecationDate, Replacement: info.Replacement}
	}
	days := int(date.Sub(now).Hours() / 24)
	warning = fmt.Sprintf("model %s is retired by its provider on %s (in %d days)", model, info.DeprecationDate, days)
	if info.Replacement != "" {
		warning += "; switch to " + info.Replacement
	}
	return warning, nil
}
