package factory

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Environment variables, as documented in every command's --help.
const (
	EnvRepo      = "GITHUB_REPOSITORY  owner/name when --repo is not given; without it, the checkout's origin remote when it is on the GitHub host"
	EnvWorkspace = "GITHUB_WORKSPACE  the repository checkout when --workspace is not given (default .)"
	EnvGitHub    = "COGWORKS_GITHUB_TOKEN or GITHUB_TOKEN, or COGWORKS_GITHUB_APP_ID + COGWORKS_GITHUB_APP_PRIVATE_KEY + COGWORKS_GITHUB_INSTALLATION_ID  GitHub credentials; COGWORKS_GITHUB_API_URL  GitHub Enterprise / simulator API URL"
	EnvLLM       = "COGWORKS_LLM_PROVIDER (anthropic|openai|ollama|vllm), COGWORKS_LLM_MODEL, COGWORKS_LLM_BASE_URL, COGWORKS_LLM_API_KEY  override [llm] of the config"
	EnvServices  = "COGWORKS_DOMAIN_SERVICES_CONFIG  domain-service registry file (default .cogworks/services.toml)"
	EnvTrust     = "COGWORKS_STATE_KEY  signs and verifies state blocks and lock claims (default: derived from COGWORKS_LLM_API_KEY, COGWORKS_GITHUB_APP_PRIVATE_KEY or COGWORKS_WEBHOOK_SECRET); COGWORKS_BOT_LOGIN  the bot's login (default: asked of GitHub)"
	EnvSandbox   = "COGWORKS_UNSAFE_NO_SANDBOX=1  run generated code unisolated on a host without user namespaces (warned on every use); COGWORKS_SANDBOX_ALLOW_NETWORK=1  grant a repository's [sandbox] network = true"
	EnvLog       = "COGWORKS_LOG_FORMAT (text|json; default text on a terminal, else json), COGWORKS_LOG_LEVEL (debug|info|warn|error)  logs on stderr"
)

// HelpEnv renders the "Environment" section of a command's long help.
func HelpEnv(vars ...string) string {
	var b strings.Builder
	b.WriteString("\n\nEnvironment:\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// HelpExit renders the "Exit codes" section of a command's long help.
func HelpExit(codes ...string) string {
	return "\n\nExit codes:\n  " + strings.Join(codes, "\n  ")
}

// stepExit are the exit codes of the commands that step work items.
var stepExit = []string{
	"0  every step ran (advanced, waiting, complete, not triggered or backed off)",
	"1  an escalation, a failed pipeline or an infrastructure failure (GitHub, LLM, domain service)",
	"2  bad usage, a missing workspace, an invalid config or missing credentials",
}

// commandHelp is the help added to commands built elsewhere whose
// constructors do not set it themselves.
var commandHelp = map[string]struct{ long, example string }{
	"process": {
		long: HelpEnv(EnvRepo, EnvWorkspace, "GITHUB_EVENT_PATH  read by the Action and passed as --event", EnvGitHub, EnvLLM, EnvServices, EnvTrust, EnvSandbox, EnvLog) +
			HelpExit(stepExit...),
		example: `  cogworks process --repo acme/widgets --issue 42
  cogworks process --event "$GITHUB_EVENT_PATH" --max-steps 10
  cogworks process --repo acme/widgets --issue 42 --dry-run   # says what would advance; needs no LLM key`,
	},
	"process-all": {
		long: "\n\nSearch the repository's open issues labelled cogworks:run and step each." +
			HelpEnv(EnvRepo, EnvWorkspace, EnvGitHub, EnvLLM, EnvServices, EnvTrust, EnvSandbox, EnvLog) + HelpExit(stepExit...),
		example: `  cogworks process-all --repo acme/widgets --max-steps 5
  cogworks process-all --concurrency 2 --output json   # repo from $GITHUB_REPOSITORY`,
	},
	"demo": {
		long: HelpEnv("COGWORKS_DEMO_LOG  set to show the steps' logs on stderr", EnvLog) +
			HelpExit("0  the demo pipeline completed", "1  it did not", "2  bad usage"),
		example: `  cogworks demo
  cogworks demo --keep --listen 127.0.0.1:8080`,
	},
}

// FinishTree makes every command report usage errors (unknown command,
// extra or missing argument) as *UsageError — exit 2 with "see --help" —
// and adds the shared help to commands that lack it.
func FinishTree(cmd *cobra.Command) {
	if h, ok := commandHelp[cmd.Name()]; ok && cmd.Example == "" {
		cmd.Long = strings.TrimSpace(cmd.Long+h.long) + "\n"
		cmd.Example = h.example
	}
	if cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		// A group: with no argument show its help, else the argument is
		// an unknown subcommand.
		cmd.Args = unknownSubcommand
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if cmd.Args != nil {
		validate := cmd.Args
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := validate(c, args); err != nil {
				return usageErr(err)
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		FinishTree(sub)
	}
}

func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return fmt.Errorf("unknown command %q for %q (commands: %s)", args[0], cmd.CommandPath(), strings.Join(names, ", "))
}

// usageErr marks err as bad usage, once.
func usageErr(err error) error {
	if errors.As(err, new(*UsageError)) {
		return err
	}
	return &UsageError{Err: err}
}
