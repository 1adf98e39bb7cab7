// Package process is the process command: the step function for one work
// item, from flags or a GitHub Actions event payload.
package process
