// Package registry is the registry command: work with the interface
// registry (.cogworks/interfaces).
package registry
