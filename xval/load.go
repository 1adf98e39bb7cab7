package xval

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schema/interface-registry.schema.json
var schemaJSON []byte

// SchemaJSON returns the JSON Schema of an interface definition file (the
// same document as schemas/interface-registry.schema.json).
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

const schemaURL = "https://github.com/cogworks/cogworks/schemas/interface-registry.schema.json"

// registrySchema holds the one compilation of the embedded schema: it is
// immutable, and compiling it costs about 2 ms (BenchmarkCompileSchema),
// which every registry load of every step and serve job would pay again.
var registrySchema = sync.OnceValues(compileSchema)

// compileSchema compiles the embedded schema.
func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("parse interface registry schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("add interface registry schema: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("compile interface registry schema: %w", err)
	}
	return s, nil
}

// LoadRegistry loads every *.toml file in dir (not recursive, in name
// order). A missing directory is an empty registry. Every malformed file
// is reported, each error naming the file (and, for TOML syntax errors,
// the line; for schema errors, the interface id and field); the errors are
// joined. On error the returned registry holds the files that loaded.
func LoadRegistry(dir string) (*Registry, error) {
	return loadRegistry(dir, func(p string) string { return p })
}

// loadRegistry is LoadRegistry with a function that turns a file path into
// the name used in messages.
func loadRegistry(dir string, display func(string) string) (*Registry, error) {
	reg := &Registry{}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return reg, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load interface registry %s: %w", display(dir), err)
	}
	schema, err := registrySchema()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".toml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: read: %w", display(path), err))
			continue
		}
		iface, err := parseInterface(schema, display(path), data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reg.Interfaces = append(reg.Interfaces, iface)
	}
	return reg, errors.Join(errs...)
}

// ParseInterface decodes and validates one interface definition; file is
// the name used in messages.
func ParseInterface(file string, data []byte) (Interface, error) {
	schema, err := registrySchema()
	if err != nil {
		return Interface{}, err
	}
	return parseInterface(schema, file, data)
}

func parseInterface(schema *jsonschema.Schema, file string, data []byte) (Interface, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Interface{}, fmt.Errorf("%s:%d: invalid TOML: %s", file, pe.Position.Line, pe.Message)
		}
		return Interface{}, fmt.Errorf("%s: invalid TOML: %w", file, err)
	}
	// Round-trip through JSON so the validator sees plain JSON values
	// (TOML integers, floats and datetimes become numbers and strings).
	js, err := json.Marshal(raw)
	if err != nil {
		return Interface{}, fmt.Errorf("%s: convert to JSON: %w", file, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return Interface{}, fmt.Errorf("%s: convert to JSON: %w", file, err)
	}
	m, _ := doc.(map[string]any)
	prefix := fmt.Sprintf("%s: interface %s", file, idOf(m))
	if err := schema.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return Interface{}, fmt.Errorf("%s: %w", prefix, err)
		}
		var errs []error
		for _, msg := range schemaMessages(ve) {
			errs = append(errs, fmt.Errorf("%s: %s", prefix, msg))
		}
		return Interface{}, errors.Join(errs...)
	}
	iface := buildInterface(m, file)
	if errs := semanticErrors(iface); len(errs) > 0 {
		wrapped := make([]error, len(errs))
		for i, e := range errs {
			wrapped[i] = fmt.Errorf("%s: %w", prefix, e)
		}
		return Interface{}, errors.Join(wrapped...)
	}
	return iface, nil
}

func idOf(m map[string]any) string {
	if id, ok := m["id"].(string); ok && strings.TrimSpace(id) != "" {
		return id
	}
	return "(missing id)"
}

// buildInterface converts a schema-valid document into an Interface.
func buildInterface(m map[string]any, file string) Interface {
	str := func(mm map[string]any, k string) string { s, _ := mm[k].(string); return s }
	iface := Interface{
		ID:          str(m, "id"),
		Version:     str(m, "version"),
		Type:        str(m, "type"),
		Title:       str(m, "title"),
		Description: str(m, "description"),
		Owner:       str(m, "owner"),
		Parameters:  map[string]Parameter{},
		File:        file,
	}
	iface.Participants = stringList(m["participants"])
	params, _ := m["parameters"].(map[string]any)
	for name, rp := range params {
		pm, _ := rp.(map[string]any)
		p := Parameter{
			Name:        name,
			Kind:        Kind(str(pm, "kind")),
			Description: str(pm, "description"),
			Unit:        str(pm, "unit"),
			Ref:         str(pm, "ref"),
			Allowed:     stringList(pm["allowed"]),
		}
		if v, ok := pm["value"]; ok {
			p.Value = normalise(v)
		}
		p.Nominal, _ = toFloat(pm["nominal"])
		p.Min, _ = toFloat(pm["min"])
		p.Max, _ = toFloat(pm["max"])
		items, _ := pm["items"].([]any)
		for _, ri := range items {
			im, _ := ri.(map[string]any)
			it := Item{Name: str(im, "name"), Fields: map[string]any{}}
			for k, v := range im {
				if k != "name" {
					it.Fields[k] = normalise(v)
				}
			}
			p.Items = append(p.Items, it)
		}
		iface.Parameters[name] = p
	}
	return iface
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// semanticErrors checks what the JSON Schema cannot express.
func semanticErrors(iface Interface) []error {
	var errs []error
	for _, name := range iface.ParameterNames() {
		p := iface.Parameters[name]
		field := "parameters." + name
		switch p.Kind {
		case KindTolerance:
			if p.Min > p.Max {
				errs = append(errs, fmt.Errorf("%s: min %s is greater than max %s", field, formatNum(p.Min), formatNum(p.Max)))
			} else if p.Nominal < p.Min || p.Nominal > p.Max {
				errs = append(errs, fmt.Errorf("%s.nominal: %s is outside [%s, %s]", field, formatNum(p.Nominal), formatNum(p.Min), formatNum(p.Max)))
			}
		case KindEnum:
			v, _ := p.Value.(string)
			if !contains(p.Allowed, v) {
				errs = append(errs, fmt.Errorf("%s.value: %q is not in allowed [%s]", field, v, joinQuoted(p.Allowed)))
			}
		case KindStructured:
			seen := map[string]int{}
			for i, it := range p.Items {
				if j, dup := seen[it.Name]; dup {
					errs = append(errs, fmt.Errorf("%s.items[%d].name: duplicate item name %q (also items[%d])", field, i, it.Name, j))
					continue
				}
				seen[it.Name] = i
			}
		}
	}
	for _, d := range iface.Participants {
		if d == iface.Owner {
			errs = append(errs, fmt.Errorf("participants: owner domain %q is also listed as a participant", d))
		}
	}
	return errs
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
