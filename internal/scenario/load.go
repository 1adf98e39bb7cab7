package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// LoadError is a problem with one scenario or twin file. Field is a path
// into the document such as "acceptance[1].pattern"; Scenario is the
// scenario id and Twin the twin name, when known.
type LoadError struct {
	File     string
	Scenario string
	Twin     string
	Field    string
	Msg      string
}

// Error renders "file: scenario ID: field: message", omitting unknown parts.
func (e *LoadError) Error() string {
	parts := []string{e.File}
	if e.Scenario != "" {
		parts = append(parts, "scenario "+e.Scenario)
	}
	if e.Twin != "" {
		parts = append(parts, "twin "+e.Twin)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	return strings.Join(parts, ": ") + ": " + e.Msg
}

// scenarioKeys are the top-level keys a scenario file may use.
func scenarioKeys() []string {
	return []string{"acceptance", "covers", "description", "failure", "id", "run", "trajectories", "twin"}
}

// LoadScenarios reads every *.toml, *.yaml and *.yml file directly in dir
// (a slash-separated path inside fsys, normally the repository root) as one
// scenario each, reading overlay files relative to the root of fsys. A
// missing directory yields no scenarios. All problems found are returned
// together (errors.Join of *LoadError), so one run reports every bad file.
func LoadScenarios(ctx context.Context, fsys fs.FS, dir string) ([]Scenario, error) {
	files, err := configFiles(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("load scenarios from %s: %w", dir, err)
	}
	var (
		out  []Scenario
		errs []error
		seen = map[string]string{}
	)
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("load scenarios from %s: %w", dir, err)
		}
		doc, err := readDocument(fsys, file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sc, ferrs := buildScenario(fsys, file, doc)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		if first, dup := seen[sc.ID]; dup {
			errs = append(errs, &LoadError{File: file, Scenario: sc.ID, Field: "id", Msg: "duplicate scenario id, already defined in " + first})
			continue
		}
		seen[sc.ID] = file
		out = append(out, sc)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// configFiles lists the TOML and YAML files directly inside dir, sorted.
func configFiles(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		switch path.Ext(e.Name()) {
		case ".toml", ".yaml", ".yml":
			files = append(files, path.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files, nil
}

// readDocument decodes a TOML or YAML file into a generic table.
func readDocument(fsys fs.FS, file string) (map[string]any, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, &LoadError{File: file, Msg: fmt.Sprintf("read: %v", err)}
	}
	doc := map[string]any{}
	if path.Ext(file) == ".toml" {
		if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
			return nil, &LoadError{File: file, Msg: fmt.Sprintf("invalid TOML: %v", err)}
		}
		return doc, nil
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &LoadError{File: file, Msg: fmt.Sprintf("invalid YAML: %v", err)}
	}
	if m, ok := normalise(doc).(map[string]any); ok {
		doc = m
	}
	return doc, nil
}

// buildScenario validates a decoded document and converts it.
func buildScenario(fsys fs.FS, file string, doc map[string]any) (Scenario, []error) {
	sc := Scenario{File: file}
	p := params(doc)
	var errs []error
	fail := func(field string, err error) {
		le := &LoadError{File: file, Scenario: sc.ID, Field: field, Msg: err.Error()}
		var fe *fieldError
		if errors.As(err, &fe) {
			le.Field, le.Msg = joinField(field, fe.field), fe.msg
		}
		errs = append(errs, le)
	}
	id, err := p.str("id", true)
	if err != nil {
		fail("", err)
		return sc, errs
	}
	if strings.ContainsAny(id, " \t\r\n") {
		fail("id", fmt.Errorf("must not contain whitespace, got %q", id))
		return sc, errs
	}
	sc.ID = id
	if err := p.only(scenarioKeys()...); err != nil {
		fail("", err)
	}
	if sc.Description, err = p.str("description", false); err != nil {
		fail("", err)
	}
	if sc.Covers, err = p.strList("covers"); err != nil {
		fail("", fmt.Errorf("%w (a scenario must cover at least one interface id)", err))
	}
	if n, _, err := p.integer("trajectories", false); err != nil {
		fail("", err)
	} else if n < 0 {
		fail("trajectories", fmt.Errorf("must be positive (or omitted for the configured default), got %d", n))
	} else {
		sc.Trajectories = n
	}
	if sc.Twin, err = p.str("twin", false); err != nil {
		fail("", err)
	}
	if p.has("run") {
		run, ok := normalise(p["run"]).(map[string]any)
		if !ok {
			fail("run", fmt.Errorf("must be a table, got %s", typeName(p["run"])))
		} else {
			sc.Run = buildRun(fsys, run, func(field string, err error) { fail(joinField("run", field), err) })
		}
	}
	sc.Acceptance = buildCriteria(p, "acceptance", fail)
	if !p.has("acceptance") {
		fail("acceptance", errors.New("a scenario needs at least one acceptance criterion"))
	}
	sc.Failure = buildCriteria(p, "failure", fail)
	return sc, errs
}

func buildRun(fsys fs.FS, raw map[string]any, fail func(string, error)) RunSpec {
	var run RunSpec
	p := params(raw)
	if err := p.only("filter", "overlay", "packages"); err != nil {
		fail("", err)
	}
	var err error
	if run.Filter, err = p.str("filter", false); err != nil {
		fail("", err)
	}
	if p.has("packages") {
		if run.Packages, err = p.strList("packages"); err != nil {
			fail("", err)
		}
	}
	if !p.has("overlay") {
		return run
	}
	items, ok := asList(p["overlay"])
	if !ok {
		fail("overlay", fmt.Errorf("must be a list of {from, to} tables, got %s", typeName(p["overlay"])))
		return run
	}
	for i, it := range items {
		field := fmt.Sprintf("overlay[%d]", i)
		m, ok := normalise(it).(map[string]any)
		if !ok {
			fail(field, fmt.Errorf("must be a {from, to} table, got %s", typeName(it)))
			continue
		}
		op := params(m)
		if err := op.only("from", "to"); err != nil {
			fail(field, err)
			continue
		}
		from, err := op.str("from", true)
		if err != nil {
			fail(field, err)
			continue
		}
		to, err := op.str("to", true)
		if err != nil {
			fail(field, err)
			continue
		}
		if err := checkRelPath(from); err != nil {
			fail(field+".from", err)
			continue
		}
		if err := checkRelPath(to); err != nil {
			fail(field+".to", err)
			continue
		}
		content, err := fs.ReadFile(fsys, from)
		if err != nil {
			fail(field+".from", fmt.Errorf("read overlay source: %v", err))
			continue
		}
		run.Overlay = append(run.Overlay, Overlay{From: from, To: to, Content: string(content)})
	}
	return run
}

// buildCriteria converts the list under key into criteria, validating each.
func buildCriteria(p params, key string, fail func(string, error)) []Criterion {
	if !p.has(key) {
		return nil
	}
	items, ok := asList(p[key])
	if !ok {
		fail(key, fmt.Errorf("must be a list of criterion tables, got %s", typeName(p[key])))
		return nil
	}
	if len(items) == 0 {
		fail(key, errors.New("must not be empty"))
	}
	var out []Criterion
	for i, it := range items {
		field := fmt.Sprintf("%s[%d]", key, i)
		m, ok := normalise(it).(map[string]any)
		if !ok {
			fail(field, fmt.Errorf("must be a criterion table, got %s", typeName(it)))
			continue
		}
		c, err := criterionFromTable(m)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			fail(field, err)
			continue
		}
		out = append(out, c)
	}
	return out
}

// criterionFromTable splits a criterion table into check, message, when and
// the inline parameters.
func criterionFromTable(m map[string]any) (Criterion, error) {
	p := params(m)
	check, err := p.str("check", true)
	if err != nil {
		return Criterion{}, err
	}
	msg, err := p.str("message", false)
	if err != nil {
		return Criterion{}, err
	}
	c := Criterion{Check: check, Message: msg, Params: map[string]any{}}
	if p.has("when") {
		w, ok := m["when"].(map[string]any)
		if !ok {
			return Criterion{}, fieldErrorf("when", "must be a table of conditions, got %s", typeName(m["when"]))
		}
		c.When = w
	}
	for k, v := range m {
		switch k {
		case "check", "message", "when":
		default:
			c.Params[k] = v
		}
	}
	return c, nil
}

// checkRelPath rejects absolute paths and paths escaping the repository.
func checkRelPath(p string) error {
	if !fs.ValidPath(p) || p == "." {
		return fmt.Errorf("%q must be a clean repository-relative path without '..'", p)
	}
	return nil
}

func joinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	}
	return prefix + "." + field
}
