// Package regress is a library whose upstream already has a failing test.
package regress

// Add returns a plus b.
func Add(a, b int) int {
	return b - a
}

// Sub returns a minus b.
func Sub(a, b int) int {
	return a - b
}
