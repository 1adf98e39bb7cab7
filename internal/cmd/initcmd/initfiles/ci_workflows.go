package initfiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// CI feedback hears a GitHub Actions CI run through workflow_run, which
// GitHub only accepts with the workflows listed by name (check_suite and
// check_run need no names, but GitHub starts no workflow for the check
// suites GitHub Actions itself creates). init therefore writes the names
// of the repository's own CI workflows into the workflow_run trigger.

// workflowRunList is the template's workflow_run list, which init
// replaces with the workflows it finds.
const workflowRunList = "    workflows: [ci]\n"

// CIWorkflows are the workflows of a repository that run on a pull
// request's commits, as init found them.
type CIWorkflows struct {
	// Names are the `name:`s of the workflows with a push, pull_request
	// or pull_request_target trigger, sorted, CogWorks's own left out.
	Names []string
	// Unnamed are the paths of such workflows without a `name:`: a
	// workflow_run trigger cannot list them reliably.
	Unnamed []string
}

// DetectCIWorkflows reads .github/workflows/*.yml and *.yaml under
// workspace. CogWorks's own workflows (the one init writes, the cron
// example, any that uses cogworks/cogworks or runs `cogworks
// process-all`) and workflows that do not run on pushed commits
// (schedule, workflow_dispatch, workflow_run, …) are left out. A file
// that is not YAML is an error naming it: the user's CI is what CogWorks
// must hear, so init does not guess.
func DetectCIWorkflows(workspace string) (CIWorkflows, error) {
	dir := filepath.Join(workspace, ".github", "workflows")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return CIWorkflows{}, nil
	}
	if err != nil {
		return CIWorkflows{}, fmt.Errorf("init: read %s: %w", dir, err)
	}
	var out CIWorkflows
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yml" && ext != ".yaml") {
			continue
		}
		rel := ".github/workflows/" + e.Name()
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return CIWorkflows{}, fmt.Errorf("init: read %s: %w", rel, err)
		}
		if ownWorkflow(rel, data) {
			continue
		}
		var wf struct {
			Name string    `yaml:"name"`
			On   yaml.Node `yaml:"on"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			return CIWorkflows{}, fmt.Errorf("init: %s is not a workflow YAML can read: %w", rel, err)
		}
		if !runsOnCommits(wf.On) {
			continue
		}
		if name := strings.TrimSpace(wf.Name); name != "" {
			if !slices.Contains(out.Names, name) {
				out.Names = append(out.Names, name)
			}
			continue
		}
		out.Unnamed = append(out.Unnamed, rel)
	}
	slices.Sort(out.Names)
	return out, nil
}

// ownWorkflow tells CogWorks's own workflows: the path init writes, the
// cron example's, or one that runs CogWorks (its Action, or process-all).
func ownWorkflow(rel string, data []byte) bool {
	switch rel {
	case WorkflowPath, ".github/workflows/cogworks-cron.yml":
		return true
	}
	return bytes.Contains(data, []byte("cogworks/cogworks@")) || bytes.Contains(data, []byte("cogworks process-all")) ||
		bytes.Contains(data, []byte(`cogworks" process-all`))
}

// commitTriggers are the events that run a workflow on a pull request's
// pushed commits.
var commitTriggers = []string{"push", "pull_request", "pull_request_target"}

// runsOnCommits reports whether a workflow's `on:` (one event, a list,
// or a map of events) names a commit trigger.
func runsOnCommits(on yaml.Node) bool {
	switch on.Kind {
	case yaml.ScalarNode:
		return slices.Contains(commitTriggers, on.Value)
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if slices.Contains(commitTriggers, n.Value) {
				return true
			}
		}
	case yaml.MappingNode:
		for i := 0; i < len(on.Content); i += 2 {
			if slices.Contains(commitTriggers, on.Content[i].Value) {
				return true
			}
		}
	}
	return false
}

// RenderWorkflow writes the CI workflows found into the workflow
// template's workflow_run trigger; with none, the trigger is left out
// (GitHub rejects an empty list) and a comment says how to add it.
func RenderWorkflow(tmpl []byte, found CIWorkflows) ([]byte, error) {
	text := string(tmpl)
	if !strings.Contains(text, "  workflow_run:\n"+workflowRunList) {
		return nil, errors.New("init template: the workflow_run trigger is not where init writes the CI workflows")
	}
	if len(found.Names) == 0 {
		note := "  # workflow_run: init found no CI workflow in .github/workflows (one with a\n" +
			"  # `name:` and a push or pull_request trigger). Add your CI's names here:\n" +
			"  # workflow_run:\n  #   workflows: [\"<name>\"]\n  #   types: [completed]\n"
		return []byte(strings.Replace(text, "  workflow_run:\n"+workflowRunList+"    types: [completed]\n", note, 1)), nil
	}
	// A JSON array of strings is a YAML flow sequence; & < > stay as
	// they are, for the reader.
	var list bytes.Buffer
	enc := json.NewEncoder(&list)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(found.Names); err != nil {
		return nil, fmt.Errorf("init: list the CI workflows: %w", err)
	}
	return []byte(strings.Replace(text, workflowRunList, "    workflows: "+list.String(), 1)), nil
}
