// Package doctor is the doctor command: one line per check of a
// repository's CogWorks set-up, each with its fix.
package doctor
