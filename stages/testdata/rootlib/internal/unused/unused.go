// Package unused is imported by nothing.
package unused

// Unused is out of the import graph.
const Unused = "UNUSEDMARKER"
