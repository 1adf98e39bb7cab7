// Package initcmd is the init command: it writes a repository's config, an
// example scenario and the workflow, and creates the labels. (A package
// cannot be named init.)
package initcmd
