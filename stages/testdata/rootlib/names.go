package rootlib

// Name returns the library name.
func Name() string { return "rootlib" }
