package factory

// Check statuses.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "FAIL"
	CheckSkip = "skip"
)

// Check is one line of the doctor's report.
type Check struct {
	Name   string
	Status string // ok | warn | FAIL | skip
	Detail string
	// Fix is the hint shown when the check did not pass.
	Fix string
}
