// Package testverdict decides whether a test run proves a change, from the
// tests the run reports and never from the domain service's Passed or exit
// code alone (issue 25, docs/domain-services.md "Test verdicts").
//
// It is pure: Judge takes the head run, the base run (the same packages on
// the tree without the change), the single-test re-run of failures and
// what CogWorks knows of the change's tests (planned, declared, removed),
// all as plain data, and returns the verdict with a sentence per reason.
// The stages run the simulations; this package only judges them, so code
// generation and scenario validation apply the same rules.
//
// Which tests a change's files declare comes from the domain service that
// runs them (SimulateResult.DeclaredTests, Extension API 1.4): Decls,
// DeclaredIn and RewrittenDecls read those declarations, and a declared
// test is matched to its runs in each runner's naming (runOf). The Go
// helpers (TestFuncs, GoDeclarations, PlannedTests) read test names from
// Go source and plan text, for the Go service and for services that
// declare nothing; they parse, never build or run anything.
package testverdict
