// Package config loads and validates a target repository's
// .cogworks/config.toml (docs/spec.md §9).
//
// Every key has a default, so a repository without the file runs with
// Default(). Unknown keys and bad values are errors that name the file and
// the key; Load never returns a partially valid Config.
package config
