// Package costreport is the cost-report command: a work item's token and
// cost table per stage and sub-work-item, against its budget.
package costreport
