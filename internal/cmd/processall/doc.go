// Package processall is the process-all command: step every open work item
// of a repository or organisation (for cron), sharded and within the
// request budget.
package processall
