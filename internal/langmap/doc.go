// Package langmap builds the repository map (domain.RepoMapResult) for
// Python, TypeScript/JavaScript, Rust and Java sources, as the Go domain
// service builds it for Go: top-level declarations with one-line
// signatures and line numbers, methods one level in, test files marked by
// each language's convention, packages and their imports. It only reads
// text: no repository code, build tool or package manager ever runs.
//
// Parsing is done by small hand-written lexers (one state machine,
// configured per language, that knows each language's comments, string,
// raw-string, template-literal, char and regex literals), followed by a
// declaration scanner over the tokens. A `def` or `{` inside a string or
// comment is never seen. tree-sitter (github.com/tree-sitter/go-tree-sitter
// and its grammar modules) was not used: it needs cgo, and the Action's
// installer builds the binary with CGO_ENABLED=0 (action/install.sh), so a
// tree-sitter map would be missing exactly where CogWorks runs most; it
// would also add large C grammars to every `go test -race` build. The
// price is precision: this is a map for finding code, not a parser, and
// an unusual construct may yield a shorter signature or a missed symbol,
// never an error. Known gaps: JSX text is not modelled (an apostrophe in
// it opens a string to the end of its line), and a regular expression
// right after `)` is read as division.
//
// Symbol kinds follow domain.Symbol's enum: classes, interfaces, structs,
// enums, traits and type aliases are "type"; functions and macros are
// "func"; methods are "method" named Type.name; module-level constants
// are "const" and other module-level bindings "var". Rust `mod` items are
// not symbols: module files are mapped through their directories.
package langmap
