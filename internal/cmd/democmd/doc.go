// Package democmd is the demo command: the whole pipeline offline, on the
// simulated GitHub with the scripted LLM and the real Go domain service
// (the sample repository and script live in internal/demo).
package democmd
