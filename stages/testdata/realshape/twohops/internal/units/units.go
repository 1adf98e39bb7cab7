// Package units picks units of measure.
package units

import "strconv"

// Best returns m in the largest unit that keeps it readable: kilometres
// from 1000 m on, metres below.
func Best(m int) (string, string) {
	if m > 1000 {
		return strconv.FormatFloat(float64(m)/1000, 'f', -1, 64), "km"
	}
	return strconv.Itoa(m), "m"
}
