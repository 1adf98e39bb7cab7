// Package gitremote finds the repository a command works on when --repo is
// not given: the checkout's origin remote, parsed for the GitHub host in use.
package gitremote
