//go:build !e2e

package e2e

// enabled: without the e2e build tag, end-to-end tests skip.
const enabled = false
