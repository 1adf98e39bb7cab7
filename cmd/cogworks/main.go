// Command cogworks is the CogWorks CLI. main only builds the command tree
// and maps the returned error to an exit code.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/cogworks/cogworks/internal/llm/providers"
	"github.com/cogworks/cogworks/internal/sandbox"
)

var version = "dev"

func main() {
	sandbox.Main()
	os.Exit(run())
}

func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The process holds the GitHub token and the LLM key: no other process
	// of this user may read its environment or memory.
	if err := sandbox.NonDumpable(); err != nil {
		fmt.Fprintln(os.Stderr, "cogworks:", err)
		return 1
	}
	f := factory.NewFactory(factory.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
	f.NewProvider = providers.FromConfig
	stopServices := factory.Wire(f)
	defer stopServices()
	root := root.NewCmdRoot(f, version)
	if err := root.ExecuteContext(ctx); err != nil {
		// The error may quote a secret (a provider's answer, a URL).
		fmt.Fprintln(os.Stderr, "cogworks:", f.Redactor().Redact(err.Error()))
		return factory.ExitCode(err)
	}
	return 0
}
