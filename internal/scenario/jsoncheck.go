package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// jsonSource returns the document a JSON check reads: the trajectory's output,
// or a produced file when the criterion names one with "file".
func jsonSource(p params) (func(obs Observation) (doc any, where string, err error), error) {
	file, err := p.str("file", false)
	if err != nil {
		return nil, err
	}
	return func(obs Observation) (any, string, error) {
		text, where := obs.Output, "output"
		if file != "" {
			content, ok := obs.Files[file]
			if !ok {
				return nil, "file " + file, fmt.Errorf("file %s was not produced", file)
			}
			text, where = content, "file "+file
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			return nil, where, fmt.Errorf("%s is not valid JSON: %v", where, err)
		}
		return doc, where, nil
	}, nil
}

// noLoader refuses every external $ref: inline schemas must be
// self-contained, and evaluation must not touch files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %s is not allowed", url)
}

func compileSchema(raw any) (*jsonschema.Schema, error) {
	m, ok := normalise(raw).(map[string]any)
	if !ok {
		return nil, fieldErrorf("schema", "must be a table (an inline JSON Schema), got %s", typeName(raw))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fieldErrorf("schema", "cannot encode as JSON: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fieldErrorf("schema", "cannot decode: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const loc = "inline://scenario/schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fieldErrorf("schema", "invalid JSON Schema: %v", err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fieldErrorf("schema", "invalid JSON Schema: %v", err)
	}
	return sch, nil
}

func compileJSONSchema(p params) (evalFunc, error) {
	if err := p.only("schema", "file"); err != nil {
		return nil, err
	}
	if !p.has("schema") {
		return nil, fieldErrorf("schema", "missing required parameter")
	}
	sch, err := compileSchema(p["schema"])
	if err != nil {
		return nil, err
	}
	source, err := jsonSource(p)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		doc, where, err := source(obs)
		if err != nil {
			return false, err.Error(), nil
		}
		if err := sch.Validate(doc); err != nil {
			var ve *jsonschema.ValidationError
			if errors.As(err, &ve) {
				return false, fmt.Sprintf("%s violates the schema: %s", where, schemaErrors(ve)), nil
			}
			return false, fmt.Sprintf("%s violates the schema: %v", where, err), nil
		}
		return true, where + " conforms to the schema", nil
	}, nil
}

// schemaErrors flattens a validation error into "location: message" leaves.
func schemaErrors(ve *jsonschema.ValidationError) string {
	printer := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}

func compileJSONPath(p params) (evalFunc, error) {
	if err := p.only("expression", "expected", "min", "max", "contains", "file"); err != nil {
		return nil, err
	}
	expr, err := p.str("expression", true)
	if err != nil {
		return nil, err
	}
	path, err := parseJSONPath(expr)
	if err != nil {
		return nil, fieldErrorf("expression", "%v", err)
	}
	if !p.has("expected") && !p.has("min") && !p.has("max") && !p.has("contains") {
		return nil, fieldErrorf("expression", "json_path needs at least one of expected, min, max, contains")
	}
	minV, hasMin, err := p.number("min")
	if err != nil {
		return nil, err
	}
	maxV, hasMax, err := p.number("max")
	if err != nil {
		return nil, err
	}
	expected, hasExpected := p["expected"], p.has("expected")
	expected = normalise(expected)
	var contains []any
	if p.has("contains") {
		if l, ok := asList(p["contains"]); ok {
			contains = normalise(l).([]any)
		} else {
			contains = []any{normalise(p["contains"])}
		}
	}
	source, err := jsonSource(p)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		doc, where, err := source(obs)
		if err != nil {
			return false, err.Error(), nil
		}
		got, err := path.eval(normalise(doc))
		if err != nil {
			return false, fmt.Sprintf("%s in %s: %v", expr, where, err), nil
		}
		if hasExpected && !reflect.DeepEqual(got, expected) {
			return false, fmt.Sprintf("%s is %s, want %s", expr, render(got), render(expected)), nil
		}
		if hasMin || hasMax {
			f, ok := toFloat(got)
			if !ok {
				return false, fmt.Sprintf("%s is %s, not a number", expr, render(got)), nil
			}
			if hasMin && f < minV {
				return false, fmt.Sprintf("%s is %g, below minimum %g", expr, f, minV), nil
			}
			if hasMax && f > maxV {
				return false, fmt.Sprintf("%s is %g, above maximum %g", expr, f, maxV), nil
			}
		}
		for _, item := range contains {
			if !containsValue(got, item) {
				return false, fmt.Sprintf("%s is %s, which does not contain %s", expr, render(got), render(item)), nil
			}
		}
		return true, fmt.Sprintf("%s is %s", expr, render(got)), nil
	}, nil
}

// containsValue reports whether a list holds item (deep equality) or a
// string holds item as a substring.
func containsValue(got, item any) bool {
	switch g := got.(type) {
	case []any:
		for _, x := range g {
			if reflect.DeepEqual(x, item) {
				return true
			}
		}
	case string:
		s, ok := item.(string)
		return ok && strings.Contains(g, s)
	}
	return false
}
