// Package repotrust decides which repositories' executable configuration
// (services file, twins, prompt overrides) serve may run, and warns when
// it ignores it.
package repotrust
