// Package secrets removes secrets from text before it leaves CogWorks: to
// GitHub, to the LLM provider and to the logs.
//
// A Redactor is built once from the values of the secrets in use (see
// EnvValues) and finds each value plain and in the encodings a program's
// output or an error message may carry it in: reversed; base64 (standard
// and URL alphabets, padded and raw, at each of the three byte alignments
// so a secret inside a longer base64 blob is found), and base64 twice;
// base32 (standard and hex alphabets, padded and raw, at each of the five
// alignments); hex (also with ':' or '-' between the bytes); URL escaping
// (query and path, upper and lower case percent escapes) and JSON string
// escaping. All the forms of all the values are matched in one pass over
// the text by an Aho-Corasick automaton, on a normal form of the text (see
// normalise.go): case folded, white space and zero-width and direction
// characters dropped, full-width look-alikes folded, so that upper-case
// hex, a secret split across lines or interleaved with invisible
// characters still matches. Every byte covered by a match is replaced,
// overlapping matches becoming one "[REDACTED]"; a match across lines
// becomes one "[REDACTED]" per line, the line breaks kept. Base64 blobs of
// gzip or zlib data are inflated, within a bound, and replaced whole when
// they hold a secret or cannot be checked (see compressed.go).
//
// Values shorter than MinLen bytes are not redacted by value: a short
// value (a port, "true", a user name) occurs in ordinary text so often
// that redacting it would mangle comments and code, and its encodings
// are shorter still. The token shapes (GitHub tokens, LLM API keys, PEM
// private key blocks) are redacted whatever the configured values, so a
// nil *Redactor still removes them.
//
// The package is pure: no I/O, no globals beyond compiled patterns.
package secrets
