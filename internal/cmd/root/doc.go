// Package root assembles the command tree: NewCmdRoot adds every command's
// package to the cogworks root command. cmd/cogworks/main.go is its only
// production caller.
package root
