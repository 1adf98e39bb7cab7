package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// actionStep is one step of action.yml's composite run.
type actionStep struct {
	ID  string `yaml:"id"`
	Run string `yaml:"run"`
}

func actionSteps(t *testing.T) []actionStep {
	t.Helper()
	data, err := os.ReadFile("../action.yml")
	require.NoError(t, err)
	var a struct {
		Runs struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &a))
	return a.Runs.Steps
}

// TestActionLiftsAppArmorUsernsRestriction runs the action's userns step
// with fake sudo and sysctl: it lifts the restriction only when the sysctl
// is 1 and passwordless sudo works, before CogWorks runs.
func TestActionLiftsAppArmorUsernsRestriction(t *testing.T) {
	steps := actionSteps(t)
	var script string
	userns, process := -1, -1
	for i, s := range steps {
		switch s.ID {
		case "userns":
			userns, script = i, s.Run
		case "process":
			process = i
		}
	}
	require.NotEqual(t, -1, userns, "action.yml has a step with id userns")
	require.Less(t, userns, process, "the restriction is lifted before CogWorks runs")
	const sysctlPath = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
	require.Contains(t, script, sysctlPath)

	tests := []struct {
		name   string
		value  string // "" = the sysctl does not exist
		sudoOK bool
		lifted bool
	}{
		{"restricted, passwordless sudo", "1", true, true},
		{"restricted, no sudo", "1", false, false},
		{"not restricted", "0", true, false},
		{"no such sysctl: not Ubuntu", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "calls")
			sysctlFile := filepath.Join(dir, "missing")
			if tt.value != "" {
				sysctlFile = filepath.Join(dir, "restrict")
				require.NoError(t, os.WriteFile(sysctlFile, []byte(tt.value+"\n"), 0o644))
			}
			bin := filepath.Join(dir, "bin")
			require.NoError(t, os.Mkdir(bin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(bin, "sudo"), []byte("#!/bin/sh\n[ \"$1\" = -n ] && shift\necho sudo \"$@\" >> "+log+"\n"+sudoBody(tt.sudoOK)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(bin, "sysctl"), []byte("#!/bin/sh\necho sysctl \"$@\" >> "+log+"\n"), 0o755))
			cmd := exec.Command("bash", "-c", strings.ReplaceAll(script, sysctlPath, sysctlFile))
			cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			calls, _ := os.ReadFile(log)
			if tt.lifted {
				assert.Contains(t, string(calls), "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0")
			} else {
				assert.NotContains(t, string(calls), "sysctl -w")
			}
		})
	}
}

// sudoBody is a fake sudo: it runs its command, or fails as sudo -n does
// when a password would be needed.
func sudoBody(ok bool) string {
	if !ok {
		return "exit 1\n"
	}
	return "exec \"$@\"\n"
}
