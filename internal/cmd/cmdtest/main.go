package cmdtest

import (
	"context"
	"os"
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Main is the TestMain of every command package's tests: the test binary
// must act as the cogworks binary when re-executed (ReexecEnv: the built-in
// domain service as a real child process) and as the sandbox helper
// (sandbox.Main), as it did when all commands shared one test binary.
func Main(m *testing.M) {
	sandbox.Main()
	if os.Getenv(ReexecEnv) == "1" {
		f := factory.NewFactory(factory.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
		root := root.NewCmdRoot(f, "test")
		root.SetArgs(os.Args[1:])
		if err := root.ExecuteContext(context.Background()); err != nil {
			os.Stderr.WriteString("cogworks: " + err.Error() + "\n")
			os.Exit(factory.ExitCode(err))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
