// Package far is four imports away.
package far

// Far is beyond the context horizon.
const Far = "FARAWAYMARKER"
