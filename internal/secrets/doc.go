// Package secrets removes secrets from text before it leaves CogWorks: to
// GitHub, to the LLM provider and to the logs.
//
// A Redactor is built once from the values of the secrets in use (see
// EnvValues) and finds each value plain and in the encodings a program's
// output or an error message may carry it in: base64 (standard and URL
// alphabets, padded and raw, at each of the three byte alignments so a
// secret inside a longer base64 blob is found), hex (lower and upper
// case), URL escaping (query and path, upper and lower case percent
// escapes) and JSON string escaping. All the forms of all the values are
// matched in one pass over the text by an Aho-Corasick automaton; every
// byte covered by a match is replaced, overlapping matches becoming one
// "[REDACTED]".
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
