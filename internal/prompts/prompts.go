package prompts

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

//go:embed templates/*.md
var embedded embed.FS

// Names of the templates shipped with CogWorks, one per LLM call.
const (
	Classify           = "classify"
	Architecture       = "architecture"
	InterfaceDesign    = "interface_design"
	Planning           = "planning"
	CodeGeneration     = "code_generation"
	InterpretFailure   = "interpret_failure"
	ReviewQuality      = "review_quality"
	ReviewArchitecture = "review_architecture"
	ReviewSecurity     = "review_security"
	LLMJudge           = "llm_judge"
)

// OverrideDir is where a repository overrides templates, relative to its
// root: <repo>/.cogworks/prompts/<name>.md.
const OverrideDir = ".cogworks/prompts"

// Names lists the embedded templates, sorted.
func Names() []string {
	entries, err := fs.ReadDir(embedded, "templates")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Template is a parsed prompt template.
type Template struct {
	// Name is the template's name, e.g. "classify".
	Name string
	// Source is "embedded" or the override file's path.
	Source string
	// Requires lists the variables Render insists on; Optional those it
	// defaults to nil.
	Requires []string
	Optional []string
	system   *template.Template
	user     *template.Template
}

// Load returns the template called name, preferring
// <repoDir>/.cogworks/prompts/<name>.md over the embedded default. An
// empty repoDir uses the embedded template only.
func Load(name, repoDir string) (*Template, error) {
	if !validName(name) {
		return nil, fmt.Errorf("prompt template name %q: want lower-case letters, digits and underscores", name)
	}
	if repoDir != "" {
		path := filepath.Join(repoDir, filepath.FromSlash(OverrideDir), name+".md")
		src, err := os.ReadFile(path)
		switch {
		case err == nil:
			return Parse(name, path, string(src))
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("read prompt override %s: %w", path, err)
		}
	}
	src, err := embedded.ReadFile("templates/" + name + ".md")
	if err != nil {
		return nil, fmt.Errorf("unknown prompt template %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return Parse(name, "embedded", string(src))
}

// Parse parses template source. The source starts with front-matter
// comment lines, then a system part and a user part:
//
//	<!-- requires: Title, Body -->
//	<!-- optional: Feedback -->
//	<!-- system -->
//	…system prompt…
//	<!-- user -->
//	…user prompt…
//
// The parts are text/template bodies with the functions described in the
// package documentation.
func Parse(name, source, src string) (*Template, error) {
	t := &Template{Name: name, Source: source}
	where := fmt.Sprintf("prompt template %q (%s)", name, source)
	src = strings.ReplaceAll(src, "\r\n", "\n")
	lines := strings.Split(src, "\n")
	sysStart, userStart := -1, -1
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "<!-- system -->" && sysStart < 0:
			sysStart = i
		case trimmed == "<!-- user -->" && sysStart >= 0 && userStart < 0:
			userStart = i
		case sysStart < 0:
			if err := t.frontMatter(trimmed); err != nil {
				return nil, fmt.Errorf("%s line %d: %w", where, i+1, err)
			}
		}
	}
	if sysStart < 0 || userStart < 0 {
		return nil, fmt.Errorf("%s: missing the <!-- system --> and <!-- user --> section markers", where)
	}
	sysSrc := strings.TrimSpace(strings.Join(lines[sysStart+1:userStart], "\n"))
	userSrc := strings.TrimSpace(strings.Join(lines[userStart+1:], "\n"))
	var err error
	if t.system, err = template.New(name + ".system").Funcs(funcs()).Option("missingkey=error").Parse(sysSrc); err != nil {
		return nil, fmt.Errorf("%s: system part: %w", where, err)
	}
	if t.user, err = template.New(name + ".user").Funcs(funcs()).Option("missingkey=error").Parse(userSrc); err != nil {
		return nil, fmt.Errorf("%s: user part: %w", where, err)
	}
	return t, nil
}

// frontMatter reads one line before the system marker.
func (t *Template) frontMatter(line string) error {
	if line == "" {
		return nil
	}
	body, ok := strings.CutPrefix(line, "<!--")
	if !ok {
		return fmt.Errorf("unexpected text %q before <!-- system -->", line)
	}
	body, ok = strings.CutSuffix(body, "-->")
	if !ok {
		return fmt.Errorf("unterminated comment %q", line)
	}
	key, list, ok := strings.Cut(strings.TrimSpace(body), ":")
	if !ok {
		return nil // a plain comment
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	switch strings.TrimSpace(key) {
	case "requires":
		t.Requires = append(t.Requires, names...)
	case "optional":
		t.Optional = append(t.Optional, names...)
	}
	return nil
}

// Render executes the template. It fails before producing anything when a
// required variable is missing, naming it and the template. Optional
// variables not given are nil. The system prompt always ends up carrying
// the untrusted-data policy (DataPolicy), even when an override omits it.
func (t *Template) Render(vars map[string]any) (system, user string, err error) {
	var missing []string
	for _, r := range t.Requires {
		if _, ok := vars[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("prompt template %q (%s): missing required variable(s) %s",
			t.Name, t.Source, strings.Join(missing, ", "))
	}
	data := make(map[string]any, len(vars)+len(t.Optional))
	for _, o := range t.Optional {
		data[o] = nil
	}
	for k, v := range vars {
		data[k] = v
	}
	var sys, usr bytes.Buffer
	if err := t.system.Execute(&sys, data); err != nil {
		return "", "", fmt.Errorf("prompt template %q (%s): render system part: %w", t.Name, t.Source, err)
	}
	if err := t.user.Execute(&usr, data); err != nil {
		return "", "", fmt.Errorf("prompt template %q (%s): render user part: %w", t.Name, t.Source, err)
	}
	system = strings.TrimSpace(sys.String())
	if !strings.Contains(system, DataPolicy) {
		system += "\n\n" + DataPolicy
	}
	return system, strings.TrimSpace(usr.String()) + "\n", nil
}

// Set renders templates for one repository checkout; it implements the
// llm.Renderer port.
type Set struct {
	// RepoDir is the target repository's working copy ("" for embedded
	// templates only).
	RepoDir string
}

// Render loads name (override first) and renders it with vars.
func (s Set) Render(name string, vars map[string]any) (string, string, error) {
	t, err := Load(name, s.RepoDir)
	if err != nil {
		return "", "", err
	}
	return t.Render(vars)
}

func validName(name string) bool {
	if name == "" || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}
