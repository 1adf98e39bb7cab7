// Package render formats values for people.
package render

import "example.com/twohops/internal/units"

// Distance renders a distance in metres with its best unit.
func Distance(m int) string {
	v, unit := units.Best(m)
	return v + " " + unit
}
