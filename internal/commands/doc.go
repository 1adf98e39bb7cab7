// Package commands parses CogWorks comment commands: lines such as
// "/cogworks approve" in an issue comment. It is pure: it decides what a
// comment body asks for and nothing else; the engine checks who asked and
// acts.
//
// A command is a line whose first token is /cogworks, outside block
// quotes, fenced code blocks and indented code blocks, so that quoting or
// showing a command never issues it again.
package commands
