// Package initfiles holds the files `cogworks init` writes: the
// configuration (rendered from config.Default, so the file and the
// defaults cannot drift apart), an example scenario and the GitHub
// Actions workflow. It is apart from the init command so that the tests
// that check those files (action's workflow policy, the configuration
// tests) do not link the command tree and the LLM providers' SDKs.
package initfiles

import (
	"bytes"
	"embed"
	"fmt"
	"text/template"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

//go:embed templates/config.toml.tmpl templates/scenario.toml templates/cogworks.yml
var templates embed.FS

// Files `cogworks init` writes besides config.Path, relative to the
// repository root.
const (
	ScenarioPath = ".cogworks/scenarios/example.toml"
	WorkflowPath = ".github/workflows/cogworks.yml"
)

// Files returns the files init writes, keyed by slash path.
func Files() (map[string][]byte, error) {
	cfg, err := RenderConfig()
	if err != nil {
		return nil, err
	}
	scn, err := templates.ReadFile("templates/scenario.toml")
	if err != nil {
		return nil, fmt.Errorf("init template: %w", err)
	}
	wf, err := templates.ReadFile("templates/cogworks.yml")
	if err != nil {
		return nil, fmt.Errorf("init template: %w", err)
	}
	return map[string][]byte{config.Path: cfg, ScenarioPath: scn, WorkflowPath: wf}, nil
}

// RenderConfig writes config.Default() as commented TOML, so the
// file and the defaults cannot drift apart.
func RenderConfig() ([]byte, error) {
	tmpl, err := template.ParseFS(templates, "templates/config.toml.tmpl")
	if err != nil {
		return nil, fmt.Errorf("init template: %w", err)
	}
	type gate struct {
		Name string
		Mode config.GateMode
	}
	def := config.Default()
	var gates []gate
	for _, st := range pipeline.AllStages() {
		if mode, ok := def.Gates[string(st)]; ok {
			gates = append(gates, gate{Name: string(st), Mode: mode})
		}
	}
	var b bytes.Buffer
	data := struct {
		config.Config
		GateStages []gate
		PricesAsOf string
	}{def, gates, llm.PricesAsOf}
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("render config template: %w", err)
	}
	return b.Bytes(), nil
}
