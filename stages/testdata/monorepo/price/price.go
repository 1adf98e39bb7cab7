// Package price holds amounts of money in cents.
package price

// Cents is an amount of money in cents.
type Cents int64
