package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxPerPage is the largest page GitHub serves; its description leaves
// per_page unbounded, but its documentation says "max 100".
const MaxPerPage = 100

// compiler compiles schemas out of one converted copy of the description.
type compiler struct {
	mu  sync.Mutex // jsonschema.Compiler is not safe for concurrent use
	c   *jsonschema.Compiler
	url string
}

// lazySchema is a schema compiled on first use.
type lazySchema struct {
	c       *compiler
	pointer string
	once    sync.Once
	s       *jsonschema.Schema
	err     error
}

func (c *compiler) lazy(pointer string) *lazySchema { return &lazySchema{c: c, pointer: pointer} }

func (l *lazySchema) get() (*jsonschema.Schema, error) {
	l.once.Do(func() { l.s, l.err = l.c.compile(l.pointer) })
	return l.s, l.err
}

// validate checks v against the schema.
func (l *lazySchema) validate(v any) error {
	s, err := l.get()
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// newCompiler converts the description's OpenAPI 3.0 schemas to JSON
// Schema 2020-12 (nullable becomes a "null" type) and, when relaxed,
// drops every "required" (the simulator answers a subset of GitHub's
// fields on purpose; the adapter's own reads are checked by
// RequireFields).
func newCompiler(data []byte, relaxed bool) (*compiler, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse the OpenAPI description: %w", err)
	}
	doc = convert(doc, relaxed)
	name := "strict"
	if relaxed {
		name = "relaxed"
	}
	u := "mem://github/" + name + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(u, doc); err != nil {
		return nil, fmt.Errorf("load the OpenAPI description: %w", err)
	}
	return &compiler{c: c, url: u}, nil
}

func (c *compiler) compile(pointer string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	frag := (&url.URL{Fragment: pointer}).EscapedFragment()
	s, err := c.c.Compile(c.url + "#" + frag)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", pointer, err)
	}
	return s, nil
}

// convert rewrites OpenAPI 3.0 schema keywords in v (any part of the
// description) as JSON Schema 2020-12 has them.
func convert(v any, relaxed bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			switch {
			case k == "properties" || k == "paths" || k == "schemas" || k == "content" || k == "responses":
				// Maps of names: convert the values, never treat a name
				// ("required", "nullable") as a keyword.
				m, _ := val.(map[string]any)
				conv := make(map[string]any, len(m))
				for name, s := range m {
					conv[name] = convert(s, relaxed)
				}
				out[k] = conv
			case k == "required" && relaxed:
				if _, isList := val.([]any); !isList {
					out[k] = val // a parameter's or request body's flag
				}
			case k == "oneOf" && relaxed:
				// Without "required" the alternatives overlap (any object
				// matches two object schemas), so exactly-one cannot be
				// judged: one matching is enough.
				out["anyOf"] = convert(val, relaxed)
			case k == "nullable":
			default:
				out[k] = convert(val, relaxed)
			}
		}
		if t["nullable"] == true {
			return nullable(out)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = convert(e, relaxed)
		}
		return out
	}
	return v
}

// nullable makes schema s also accept null.
func nullable(s map[string]any) map[string]any {
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
		s["enum"] = append(enum, nil)
	}
	switch typ := s["type"].(type) {
	case string:
		s["type"] = []any{typ, "null"}
		return s
	case nil:
		if _, hasEnum := s["enum"]; hasEnum {
			return s
		}
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	return s
}

// CheckRequest checks one request against the operation it matches:
// method and path, query parameters (declared, of the declared type and
// enum, per_page ≤ MaxPerPage) and JSON body (the requestBody schema). It
// returns every problem found, joined, or nil.
func (d *Description) CheckRequest(method, path, rawQuery string, body []byte) (*Operation, error) {
	op, ok := d.Match(method, path)
	if !ok {
		return nil, fmt.Errorf("%s %s: no operation of GitHub's description", method, path)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s %s: %s: %s", method, path, op.ID, fmt.Sprintf(format, args...)))
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		bad("query %q: %v", rawQuery, err)
	}
	for name, values := range query {
		p := op.param("query", name)
		if p == nil {
			bad("query parameter %q is not declared", name)
			continue
		}
		if len(values) > 1 && p.Type != "array" {
			bad("query parameter %q given %d times", name, len(values))
		}
		for _, v := range values {
			if err := p.check(v); err != nil {
				bad("query parameter %s=%q: %v", name, v, err)
			}
		}
	}
	for _, p := range op.Params {
		if p.In == "query" && p.Required && !query.Has(p.Name) {
			bad("required query parameter %q missing", p.Name)
		}
	}
	for _, seg := range pathParams(op.Path, path) {
		if p := op.param("path", seg.name); p != nil {
			if err := p.check(seg.value); err != nil {
				bad("path parameter %s=%q: %v", seg.name, seg.value, err)
			}
		}
	}
	switch {
	case len(body) == 0 && op.bodyRequired:
		bad("the request body is required")
	case len(body) > 0 && op.body == nil:
		bad("sends a body (%d bytes); the operation takes none", len(body))
	case len(body) > 0:
		inst, err := decodeJSON(body)
		if err != nil {
			bad("body is not JSON: %v", err)
		} else if err := op.body.validate(inst); err != nil {
			bad("body %s does not match the requestBody schema: %s", clip(body), oneLine(err))
		}
	}
	return op, errors.Join(errs...)
}

func (o *Operation) param(in, name string) *Parameter {
	for i := range o.Params {
		if o.Params[i].In == in && o.Params[i].Name == name {
			return &o.Params[i]
		}
	}
	return nil
}

// check validates one parameter value, typed as the schema declares.
func (p *Parameter) check(raw string) error {
	var v any = raw
	switch p.Type {
	case "integer":
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return fmt.Errorf("not an integer")
		}
		if p.Name == "per_page" && (n < 1 || n > MaxPerPage) {
			return fmt.Errorf("per_page must be 1..%d", MaxPerPage)
		}
		v = json.Number(raw)
	case "number":
		if _, err := strconv.ParseFloat(raw, 64); err != nil {
			return fmt.Errorf("not a number")
		}
		v = json.Number(raw)
	case "boolean":
		b, err := strconv.ParseBool(raw)
		if err != nil || raw != "true" && raw != "false" {
			return fmt.Errorf("not true or false")
		}
		v = b
	case "array":
		var items []any
		for _, s := range strings.Split(raw, ",") {
			items = append(items, s)
		}
		v = items
	}
	return p.schema.validate(v)
}

type pathParam struct{ name, value string }

// pathParams pairs a template's parameters with a matching path's
// segments (a trailing ref or path takes the rest).
func pathParams(template, path string) []pathParam {
	st, sp := segments(template), segments(path)
	var out []pathParam
	for i, seg := range st {
		if !isParam(seg) || i >= len(sp) {
			continue
		}
		value := sp[i]
		if i == len(st)-1 && restParam(seg) {
			value = strings.Join(sp[i:], "/")
		}
		if u, err := url.PathUnescape(value); err == nil {
			value = u
		}
		out = append(out, pathParam{name: strings.Trim(seg, "{}"), value: value})
	}
	return out
}

// CheckResponse checks a response the operation answered: a success or
// redirect status it declares, a body matching that status's schema
// (fields present; "required" relaxed), and for errors GitHub's shape:
// message and documentation_url, and errors[] for "Validation Failed".
func (d *Description) CheckResponse(op *Operation, status int, body []byte) error {
	_, err := d.checkResponse(op, status, body)
	return err
}

// checkResponse is CheckResponse, also returning the decoded body (nil
// when it is not JSON) for the caller's further checks.
func (d *Description) checkResponse(op *Operation, status int, body []byte) (any, error) {
	code := strconv.Itoa(status)
	schema, declared := op.responses[code]
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s answered %d: %s", op, status, fmt.Sprintf(format, args...)))
	}
	switch {
	case status == http.StatusNotModified:
		return nil, nil // a conditional GET: no body, any operation
	case status < http.StatusBadRequest && !declared:
		bad("status not declared (declares %v)", op.Statuses)
	case status >= http.StatusBadRequest:
		if err := checkErrorShape(status, body); err != nil {
			bad("%v", err)
		}
	}
	inst, err := decodeJSON(body)
	if err != nil {
		inst = nil
		if schema != nil {
			bad("body is not JSON: %v", err)
		}
	} else if schema != nil {
		if err := schema.validate(inst); err != nil {
			bad("body does not match the response schema: %s", oneLine(err))
		}
	}
	return inst, errors.Join(errs...)
}

// checkErrorShape checks an error body as GitHub writes them.
func checkErrorShape(status int, body []byte) error {
	var e struct {
		Message          *string           `json:"message"`
		DocumentationURL *string           `json:"documentation_url"`
		Errors           []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return fmt.Errorf("error body %s is not a JSON object: %w", clip(body), err)
	}
	var missing []string
	if e.Message == nil {
		missing = append(missing, "message")
	}
	if e.DocumentationURL == nil {
		missing = append(missing, "documentation_url")
	}
	if status == http.StatusUnprocessableEntity && e.Message != nil && *e.Message == "Validation Failed" && len(e.Errors) == 0 {
		missing = append(missing, "errors[]")
	}
	if len(missing) > 0 {
		return fmt.Errorf("error body %s lacks %s", clip(body), strings.Join(missing, ", "))
	}
	return nil
}

// RequireFields checks that a JSON body has every field at paths: dotted
// names, "[]" stepping into every element of an array ("[].user.login",
// "labels[].name"). A field that is present but null counts as present.
func RequireFields(body []byte, paths ...string) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return requireFields(v, paths)
}

func requireFields(v any, paths []string) error {
	var errs []error
	for _, p := range paths {
		if missing := lookup(v, strings.ReplaceAll(p, "[]", ".[]"), ""); missing != "" {
			errs = append(errs, fmt.Errorf("field %s missing (at %s)", p, missing))
		}
	}
	return errors.Join(errs...)
}

// lookup walks path in v and returns where a field is missing ("" when
// every step is there).
func lookup(v any, path, at string) string {
	path = strings.TrimPrefix(path, ".")
	if path == "" {
		return ""
	}
	step, rest, _ := strings.Cut(path, ".")
	if step == "[]" {
		arr, ok := v.([]any)
		if !ok {
			return at + " (not an array)"
		}
		for i, e := range arr {
			if m := lookup(e, rest, fmt.Sprintf("%s[%d]", at, i)); m != "" {
				return m
			}
		}
		return ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return at + " (not an object)"
	}
	next, ok := obj[step]
	if !ok {
		return at + "." + step
	}
	if next == nil {
		return ""
	}
	return lookup(next, rest, at+"."+step)
}

// oneLine flattens a jsonschema validation error (one line per failing
// keyword) so that CheckLog can count it as one problem.
func oneLine(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		var parts []string
		for _, line := range strings.Split(ve.Error(), "\n")[1:] {
			parts = append(parts, strings.TrimSpace(line))
		}
		return strings.Join(parts, "; ")
	}
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}

func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
