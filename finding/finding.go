// Package finding holds the one severity scale every finding and
// diagnostic uses: the domain services' diagnostics on the wire
// (domain.Diagnostic), the cross-domain checks (xval) and the review
// passes (review). It imports nothing, so the pure core can use it.
package finding

// Severity is how serious a finding is.
type Severity string

// Severities, most serious first.
const (
	// Blocking fails the attempt or the review.
	Blocking Severity = "blocking"
	// Warning is shown but does not block.
	Warning Severity = "warning"
	// Informational is a note.
	Informational Severity = "informational"
)
