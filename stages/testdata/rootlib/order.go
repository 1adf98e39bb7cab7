package rootlib

// Less orders ints.
func Less(a, b int) bool { return a < b }
