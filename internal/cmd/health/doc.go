// Package health is the health command: handshake the registered domain
// services and report their status.
package health
