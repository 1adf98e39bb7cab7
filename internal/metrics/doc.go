// Package metrics holds CogWorks's Prometheus instruments: steps by stage
// and outcome, step duration, GitHub requests by method and status, the
// rate-limit remaining gauge, LLM calls, tokens and dollars by stage and
// model, lock contention, gate waits, and the serve queue.
//
// Every Metrics owns its registry (the process-wide default registry is
// never touched), so tests and several servers in one process do not
// share counters. All methods are safe for concurrent use; a nil *Metrics
// is a valid no-op sink so that callers need no guards.
//
// Exposition: Handler serves /metrics, WriteFile writes the text format
// for the node-exporter textfile collector (atomic rename, so the
// collector never reads a half-written file) and Push sends to a
// Prometheus Pushgateway.
package metrics
