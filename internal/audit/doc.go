// Package audit is the one formatter for every comment CogWorks posts:
// a hidden key marker, a consistent header, the body and a footer. The bot
// finds and edits its own comments by the marker's key, so comments with a
// key are upserted, never re-posted (docs/spec.md §6).
//
// It also renders the status comment (human-readable state, the machine
// diagram and the hidden snapshot block), stage-entry notices, structured
// failure reports and cost tables.
//
// Contracts: pure functions, no I/O, safe for concurrent use. Output is
// deterministic for a given input. Every formatted comment passes through
// Redact, which removes token-shaped secrets (GitHub tokens, LLM API keys,
// PEM private keys) through package secrets. The configured secrets'
// values are removed later, at the GitHub adapter's write methods, by the
// one secrets.Redactor the CLI builds from the environment.
package audit
