// Package domaincmd is the hidden domain-cmd command: the built-in command
// domain service for one configured toolchain ([[domains]] entry).
package domaincmd
