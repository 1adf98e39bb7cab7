// Package domaingo is the hidden domain-go command: the built-in reference
// Go domain service.
package domaingo
