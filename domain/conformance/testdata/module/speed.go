// Package conformance is the fixture module of the conformance suite.
package conformance

//cogworks:contract SWD-IF-CAN-01 baud_rate
const BaudRate = 250000

// Double returns twice v.
func Double(v int) int { return 2 * v }
