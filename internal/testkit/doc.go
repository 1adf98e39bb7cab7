// Package testkit holds the fixtures and fakes that tests of several
// packages share, so each exists once: a file tree written from a map
// (WriteTree), golden files (Golden), a buffer safe for concurrent writers
// (SyncBuffer) and a recording stand-in for an injectable sleep
// (SleepRecorder).
//
// Golden files follow one rule: UPDATE=1 rewrites them (creating their
// directory) before they are compared, so `UPDATE=1 go test ./pkg` then
// `git diff` is how a changed rendering is reviewed; any other value of
// UPDATE, or none, only compares.
//
// Only tests import it (internal/linkguard keeps `testing` out of the
// binaries).
package testkit
