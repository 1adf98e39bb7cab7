// Package cmdtest holds what the command packages' tests share: a Factory
// on the simulator, running the whole command tree, and the TestMain that
// lets a test binary re-execute itself as cogworks. Only tests import it.
package cmdtest
