package rootlib

// Legacy keeps its pre-gofmt layout.
func Legacy( a int )int{
    return a*2
}

// Version is the library version.
const Version = "1.0.0"
