package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
	"github.com/cogworks/cogworks/internal/llm"
)

// currentMajors is the lowest major of each action the workflows may use:
// the first that runs on Node 24. The majors below it run on Node 20 (or
// older), which GitHub's runners have dropped. An action missing here
// fails TestWorkflowsUseCurrentActionMajors until it is added on purpose.
var currentMajors = map[string]int{
	"actions/checkout":             5, // v4: node20
	"actions/setup-go":             6, // v5: node20
	"docker/setup-qemu-action":     4, // v3: node20
	"docker/setup-buildx-action":   4, // v3: node20
	"docker/login-action":          4, // v3: node20
	"goreleaser/goreleaser-action": 7, // v6: node20
	"cogworks/cogworks":            1, // composite: no Node runtime
}

// policyJob is the part of a workflow job the policy tests read.
type policyJob struct {
	If          string         `yaml:"if"`
	Concurrency map[string]any `yaml:"concurrency"`
	Steps       []struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	} `yaml:"steps"`
}

// policyWorkflow is a workflow file: Top keeps every top-level key, so a
// workflow-level concurrency is seen however it is written.
type policyWorkflow struct {
	name string
	text string
	Top  map[string]any
	Jobs map[string]policyJob
}

// givenWorkflows returns the workflows a user is given: every example,
// and the workflow `cogworks init` writes, exactly as init renders it.
func givenWorkflows(t *testing.T) []policyWorkflow {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	texts := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		texts[p] = data
	}
	files, err := initfiles.Files()
	require.NoError(t, err)
	wf, ok := files[".github/workflows/cogworks.yml"]
	require.True(t, ok, "init writes .github/workflows/cogworks.yml")
	texts["cogworks init: .github/workflows/cogworks.yml"] = wf
	var out []policyWorkflow
	for name, data := range texts {
		out = append(out, parsePolicyWorkflow(t, name, data))
	}
	return out
}

func parsePolicyWorkflow(t *testing.T, name string, data []byte) policyWorkflow {
	t.Helper()
	w := policyWorkflow{name: name, text: string(data)}
	require.NoError(t, yaml.Unmarshal(data, &w.Top), name)
	var jobs struct {
		Jobs map[string]policyJob `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &jobs), name)
	w.Jobs = jobs.Jobs
	require.NotEmpty(t, w.Jobs, "%s has jobs", name)
	return w
}

// runsCogWorksJob reports whether a job runs CogWorks (the Action or the
// binary).
func runsCogWorksJob(j policyJob) bool {
	for _, s := range j.Steps {
		if runs, _ := runsCogWorks(workflowStep{Uses: s.Uses, Run: s.Run}); runs {
			return true
		}
	}
	return false
}

// TestWorkflowsUseJobLevelConcurrency: GitHub keeps one pending run per
// concurrency group and a newer run replaces it. At workflow level the
// group applies before the job's `if` filters the event, so a plain
// comment or edit on the issue replaced a pending /cogworks command or
// label run, which was then lost. A job's group applies only when the job
// runs: every job that runs CogWorks has one, never cancelling, and the
// per-item job filters events in its `if` and groups by issue.
func TestWorkflowsUseJobLevelConcurrency(t *testing.T) {
	for _, w := range givenWorkflows(t) {
		_, top := w.Top["concurrency"]
		assert.False(t, top, "%s: workflow-level concurrency drops pending runs; put it on the job", w.name)
		ran := 0
		for name, j := range w.Jobs {
			if !runsCogWorksJob(j) {
				continue
			}
			ran++
			group, _ := j.Concurrency["group"].(string)
			require.NotEmpty(t, group, "%s: job %s runs CogWorks without a job-level concurrency group", w.name, name)
			assert.Equal(t, false, j.Concurrency["cancel-in-progress"], "%s: job %s must not cancel a running step (it holds the lock)", w.name, name)
			if strings.Contains(j.If, "issue_comment") {
				assert.Contains(t, group, "github.event.issue.number", "%s: job %s groups by issue", w.name, name)
				assert.Contains(t, j.If, "/cogworks", "%s: job %s filters comments without a command in its if", w.name, name)
			}
		}
		assert.NotZero(t, ran, "%s runs CogWorks in no job", w.name)
	}
}

// usesRef matches a `uses:` line: the action, its ref, and an optional
// trailing `# vN…` comment naming the major of a SHA-pinned ref.
var usesRef = regexp.MustCompile(`(?m)^\s*-?\s*uses:\s*([^@\s]+)@(\S+)(?:\s+#\s*v([0-9]+))?`)

// TestWorkflowsUseCurrentActionMajors fails on an action major that runs
// on Node 20 (deprecated, dropped by the runners) in the workflows users
// are given and in this repository's own, and on an action the table
// does not know. A SHA-pinned action names its major in a `# vN` comment.
func TestWorkflowsUseCurrentActionMajors(t *testing.T) {
	texts := map[string]string{}
	for _, w := range givenWorkflows(t) {
		texts[w.name] = w.text
	}
	own, err := filepath.Glob(filepath.Join("..", ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, own)
	for _, p := range own {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		texts[p] = string(data)
	}
	for name, text := range texts {
		for _, m := range usesRef.FindAllStringSubmatch(text, -1) {
			action, ref, commentMajor := m[1], m[2], m[3]
			lowest, known := currentMajors[action]
			if !assert.True(t, known, "%s: %s is not in currentMajors; add its first Node 24 major", name, action) {
				continue
			}
			major := ""
			switch {
			case regexp.MustCompile(`^v[0-9]+`).MatchString(ref):
				major = regexp.MustCompile(`^v([0-9]+)`).FindStringSubmatch(ref)[1]
			case regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(ref):
				major = commentMajor
			}
			if !assert.NotEmpty(t, major, "%s: %s@%s: use a version tag, or a full SHA with a # vN comment", name, action, ref) {
				continue
			}
			n, err := strconv.Atoi(major)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, n, lowest, "%s: %s@%s runs on Node 20 or older; use @v%d or newer", name, action, ref, lowest)
		}
	}
}

// secretRef is a secret a workflow reads.
var secretRef = regexp.MustCompile(`secrets\.([A-Za-z_][A-Za-z0-9_]*)`)

// llmKeySecrets are the secret names the LLM key may come from: one per
// hosted provider, the names the missing-key error gives.
var llmKeySecrets = map[string]bool{llm.KeySecret("anthropic"): true, llm.KeySecret("openai"): true}

// TestWorkflowsUseDocumentedSecrets fails on a secret a given workflow
// reads that README.md and docs/deployment.md do not name (as `NAME` or
// secrets.NAME), and on an LLM key read from any secret but the
// provider's documented one: init's workflow once read LLM_API_KEY while
// README and the examples said ANTHROPIC_API_KEY. A job that passes the
// optional state key is alike with every other CogWorks job of its file:
// a job signing with another key could not read the others' state.
func TestWorkflowsUseDocumentedSecrets(t *testing.T) {
	var docs strings.Builder
	for _, p := range []string{filepath.Join("..", "README.md"), filepath.Join("..", "docs", "deployment.md")} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		docs.Write(data)
	}
	for _, w := range givenWorkflows(t) {
		for _, m := range secretRef.FindAllStringSubmatch(w.text, -1) {
			name := m[1]
			if name == "GITHUB_TOKEN" {
				continue // GitHub's own, in every run
			}
			documented := strings.Contains(docs.String(), "`"+name+"`") || strings.Contains(docs.String(), "secrets."+name)
			assert.True(t, documented, "%s reads the secret %s, which README.md and docs/deployment.md do not name", w.name, name)
		}
		stateKeys := map[string]bool{}
		for name, j := range w.Jobs {
			if !runsCogWorksJob(j) {
				continue
			}
			key, state := "", ""
			for _, s := range j.Steps {
				if v := s.With["llm-api-key"]; v != "" {
					key = v
				}
				if v := s.Env["COGWORKS_LLM_API_KEY"]; v != "" {
					key = v
				}
				if v := s.With["state-key"]; v != "" {
					state = v
				}
				if v := s.Env["COGWORKS_STATE_KEY"]; v != "" {
					state = v
				}
			}
			m := secretRef.FindStringSubmatch(key)
			if assert.NotNil(t, m, "%s: job %s gives CogWorks no LLM key secret", w.name, name) {
				assert.True(t, llmKeySecrets[m[1]], "%s: job %s reads the LLM key from %s; use ANTHROPIC_API_KEY or OPENAI_API_KEY", w.name, name, m[1])
			}
			stateKeys[state] = true
		}
		assert.Len(t, stateKeys, 1, "%s: every CogWorks job passes the same state key, or none does: %v", w.name, stateKeys)
	}
}

// TestActionInputsReachCogWorksAndAreDocumented: every input of
// action.yml is in docs/deployment.md's inputs table, and state-key
// reaches the step as COGWORKS_STATE_KEY (doctor's identity check asks for
// it, and the Action had no way to give it).
func TestActionInputsReachCogWorksAndAreDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "action.yml"))
	require.NoError(t, err)
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	require.NoError(t, yaml.Unmarshal(data, &a))
	docs, err := os.ReadFile(filepath.Join("..", "docs", "deployment.md"))
	require.NoError(t, err)
	for name := range a.Inputs {
		assert.True(t, strings.Contains(string(docs), "`"+name+"`"), "docs/deployment.md does not document the input %s", name)
	}
	require.Contains(t, a.Inputs, "state-key")
	var env map[string]string
	for _, s := range a.Runs.Steps {
		if s.ID == "process" {
			env = s.Env
		}
	}
	assert.Equal(t, "${{ inputs.state-key }}", env["COGWORKS_STATE_KEY"])
	assert.Equal(t, "${{ inputs.llm-api-key }}", env["COGWORKS_LLM_API_KEY"])
}
