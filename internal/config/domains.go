package config

import (
	"fmt"
	"slices"
	"strings"
)

// domainPresets names the presets a [[domains]] table may start from; the
// built-in command service (internal/cmdservice) defines what each runs.
var domainPresets = []string{"python", "typescript", "javascript", "rust", "java"}

// DomainPresets returns the preset names a [[domains]] table accepts.
func DomainPresets() []string { return slices.Clone(domainPresets) }

// diagnosticFormats are the accepted values of Domain.LintOutput.
var diagnosticFormats = []string{"", "auto", "sarif", "lines"}

// testReports are the accepted values of Domain.TestOutput.
var testReports = []string{"", "junit", "cargo"}

// Domain holds one [[domains]] table: a toolchain the built-in command
// service drives for the artifact types it lists. Every field overrides
// its preset's; commands are shell lines run by /bin/sh -c in the
// request's sandboxed workspace.
type Domain struct {
	// Name names the domain in messages and in the service's handshake.
	Name string `toml:"name"`
	// Preset is the starting point (see DomainPresets); empty starts
	// from nothing.
	Preset string `toml:"preset"`
	// ArtifactTypes are ".ext" suffixes or exact base names.
	ArtifactTypes []string `toml:"artifact_types"`
	// Setup prepares the workspace (installs dependencies) in its own
	// sandboxed step, before every other command.
	Setup string `toml:"setup"`
	// SetupNetwork asks for the network during Setup only; the operator
	// must also allow it (COGWORKS_SANDBOX_ALLOW_NETWORK=1).
	SetupNetwork bool `toml:"setup_network"`
	// Format rewrites files in place.
	Format string `toml:"format"`
	// Lint and TypeCheck report diagnostics.
	Lint      string `toml:"lint"`
	TypeCheck string `toml:"typecheck"`
	// LintOutput is how Lint and TypeCheck report: sarif, lines
	// (file:line:col: message) or auto (SARIF when the output is a SARIF
	// log, lines otherwise; the default).
	LintOutput string `toml:"lint_output"`
	// Test runs the tests; TestOne runs the tests a filter selects, with
	// {filter} replaced by the shell-quoted filter.
	Test    string `toml:"test"`
	TestOne string `toml:"test_one"`
	// TestOutput is how results are read: junit (a JUnit XML file the
	// command writes to $COGWORKS_REPORT_DIR) or cargo (`cargo test`
	// output lines).
	TestOutput string `toml:"test_output"`
}

// validateDomains reports every problem of the [[domains]] tables, each
// naming its key and value.
func validateDomains(ds []Domain, bad func(key, format string, args ...any)) {
	names := map[string]int{}
	for i, d := range ds {
		key := fmt.Sprintf("domains[%d]", i)
		if strings.TrimSpace(d.Name) == "" {
			bad(key+".name", "is required")
		} else if j, dup := names[d.Name]; dup {
			bad(key+".name", "%q is also the name of domains[%d]", d.Name, j)
		} else {
			names[d.Name] = i
		}
		if d.Preset != "" && !slices.Contains(domainPresets, d.Preset) {
			bad(key+".preset", "unknown preset %q (want one of %s)", d.Preset, strings.Join(domainPresets, ", "))
		}
		if d.Preset == "" && len(d.ArtifactTypes) == 0 {
			bad(key+".artifact_types", "is required without a preset")
		}
		for _, t := range d.ArtifactTypes {
			if t == "" || t == "." || strings.ContainsAny(t, "/\\*") {
				bad(key+".artifact_types", "%q is neither a \".ext\" suffix nor a base name", t)
			}
		}
		if d.Preset == "" && d.Test == "" && d.Lint == "" && d.TypeCheck == "" && d.Format == "" {
			bad(key, "declares no command: set preset, test, lint, typecheck or format")
		}
		if !slices.Contains(diagnosticFormats, d.LintOutput) {
			bad(key+".lint_output", "must be one of auto, sarif, lines, got %q", d.LintOutput)
		}
		if !slices.Contains(testReports, d.TestOutput) {
			bad(key+".test_output", "must be junit or cargo, got %q", d.TestOutput)
		}
		if d.TestOne != "" && !strings.Contains(d.TestOne, "{filter}") {
			bad(key+".test_one", "must contain {filter}, got %q", d.TestOne)
		}
		if d.SetupNetwork && d.Setup == "" && d.Preset == "" {
			bad(key+".setup_network", "is set but there is no setup command")
		}
	}
}
