package doctor

import (
	"context"
	"os"
	"strings"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/config"
)

// CheckToolchains reports, for each [[domains]] table, whether this host
// and the checkout have what its commands run (cmdservice.CheckToolchain):
// a failure when no test could run, a warning when a command would be
// skipped; skipped when the configuration declares no domain.
func CheckToolchains(ctx context.Context, f *factory.Factory, workspace string, domains []config.Domain) factory.Check {
	c := factory.Check{Name: "toolchains"}
	if len(domains) == 0 {
		c.Status, c.Detail = factory.CheckSkip, "no [[domains]] in "+config.Path
		return c
	}
	environ := os.Environ()
	if f.Getenv != nil {
		environ = []string{"PATH=" + f.Env("PATH")}
	}
	var fatal, warn, good []string
	for _, d := range domains {
		r, err := cmdservice.Resolve(d)
		if err != nil {
			continue // the domain services check names it
		}
		problems := cmdservice.CheckToolchain(ctx, r, workspace, environ)
		if len(problems) == 0 {
			good = append(good, d.Name)
		}
		for _, p := range problems {
			if p.Fatal {
				fatal = append(fatal, d.Name+": "+p.Message)
			} else {
				warn = append(warn, d.Name+": "+p.Message)
			}
		}
	}
	switch {
	case len(fatal) > 0:
		c.Status, c.Detail = factory.CheckFail, strings.Join(append(fatal, warn...), "; ")
		c.Fix = "install the missing tools where CogWorks runs, or give the domain a setup command (docs/domain-services.md, \"Built-in command service\")"
	case len(warn) > 0:
		c.Status, c.Detail = factory.CheckWarn, strings.Join(warn, "; ")
	default:
		c.Status, c.Detail = factory.CheckOK, "the commands of "+strings.Join(good, ", ")+" are installed"
	}
	return c
}
