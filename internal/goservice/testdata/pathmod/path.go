// Package pathmod reports where its own source lives, as testify's mock
// does to name a caller.
package pathmod

import "runtime"

// Here returns the file and line of its caller.
func Here() (string, int) {
	_, file, line, _ := runtime.Caller(1)
	return file, line
}
