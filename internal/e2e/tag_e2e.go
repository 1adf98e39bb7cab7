//go:build e2e

package e2e

// enabled: the e2e build tag is set, end-to-end tests run.
const enabled = true
