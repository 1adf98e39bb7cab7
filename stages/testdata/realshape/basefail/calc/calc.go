// Package calc holds small integer helpers.
package calc

import "errors"

// ErrDivideByZero is returned by Div for a zero divisor.
var ErrDivideByZero = errors.New("calc: division by zero")

// Abs returns the absolute value of v.
func Abs(v int) int {
	if v < 0 {
		return v
	}
	return v
}

// Div divides a by b.
func Div(a, b int) (int, error) {
	if b == 0 {
		return 0, ErrDivideByZero
	}
	return a / b, nil
}
