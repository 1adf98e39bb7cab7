// Package cifeedback reads what CI said about a commit — check runs, their
// annotations and output, the failed jobs' logs — and decides whether it
// is a failure of the code (which a revision of the pull request should
// fix) or of the infrastructure (a cancelled job, a runner that went
// away, a job that never started, a workflow that could not start),
// which spends no revision cycle. For a code failure it renders the
// feedback of a code-generation attempt: redacted (secrets.Redactor),
// summarised to the failing checks, steps and test names, with a bounded
// excerpt of the log, and quoted as untrusted data.
//
// It is pure: plain values in, plain values out; the GitHub reads are
// the caller's (stages/revision).
package cifeedback
