package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkStartup measures the fixed cost of the sandbox: starting
// `true` in a complete sandbox against starting it directly.
func BenchmarkStartup(b *testing.B) {
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.CommandContext(ctx, "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		if !Probe(ctx).Available() {
			b.Skip("no isolation on this host")
		}
		for b.Loop() {
			cmd, err := Command(ctx, Policy{Env: MinimalEnv(os.Environ())}, []string{"true"})
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
