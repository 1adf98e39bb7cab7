package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// trimmed is GitHub's REST description cut down to the operations the
// simulator serves (gen/main.go writes it; testdata/README.md says from
// what).
//
//go:embed testdata/api.github.com.trimmed.json
var trimmed []byte

// Description is the trimmed description, parsed with its schemas
// compiled. It is read-only and safe for concurrent use.
type Description struct {
	// Version is the @octokit/openapi package version it came from.
	Version string
	// Operations are every operation, sorted by path then method.
	Operations []*Operation
	// GHESLacks maps a GitHub Enterprise Server version ("3.17") to the
	// operations ("POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues")
	// its description does not have.
	GHESLacks map[string][]string
	// GHESDiffers maps a GHES version to the operations it has but whose
	// parameters or request body differ from api.github.com's
	// ("POST /app/installations/{installation_id}/access_tokens: request body").
	GHESDiffers map[string][]string
	// Webhooks are the webhook payloads kept (x-webhooks names, such as
	// "check-run-completed"), sorted.
	Webhooks []string

	webhooks map[string]*lazySchema
	// passed remembers the exchanges CheckLog found conforming, by a hash
	// of everything the checks read: the simulator answers many tests'
	// requests with the very same bytes, and checking them again cost a
	// fifth of the engine tests' CPU. Only passes are remembered.
	passed sync.Map
}

// Operation is one REST operation: a method on a path template.
type Operation struct {
	ID, Method, Path string
	// Methods are every method GitHub serves on Path; any other is
	// refused (404).
	Methods []string
	// Params are the path and query parameters.
	Params []Parameter
	// Statuses are the response statuses the description declares.
	Statuses []string

	segments     []string    // of Path
	body         *lazySchema // nil: no JSON body
	bodyRequired bool
	responses    map[string]*lazySchema // nil value: no JSON body
}

// Parameter is a path or query parameter.
type Parameter struct {
	Name, In string
	Required bool
	// Type is the schema's type (string, integer, boolean, array).
	Type   string
	schema *lazySchema
}

// String names the operation as "METHOD /path/template (operationId)".
func (o *Operation) String() string { return o.Method + " " + o.Path + " (" + o.ID + ")" }

// TakesBody reports whether the operation has a JSON request body.
func (o *Operation) TakesBody() bool { return o.body != nil }

// Key is "METHOD /path/template", as GHESLacks lists operations.
func (o *Operation) Key() string { return o.Method + " " + o.Path }

// Default returns the embedded description, parsed and compiled once per
// process.
var Default = sync.OnceValues(func() (*Description, error) { return Parse(trimmed) })

// rawDoc is the part of the trimmed file Parse reads.
type rawDoc struct {
	Info struct {
		Version string `json:"version"`
	} `json:"info"`
	Paths       map[string]map[string]json.RawMessage `json:"paths"`
	GHESLacks   map[string][]string                   `json:"x-ghes-lacks"`
	GHESDiffers map[string][]string                   `json:"x-ghes-differs"`
	Webhooks    map[string]json.RawMessage            `json:"x-webhooks"`
}

type rawOperation struct {
	OperationID string `json:"operationId"`
	Parameters  []struct {
		Name     string         `json:"name"`
		In       string         `json:"in"`
		Required bool           `json:"required"`
		Schema   map[string]any `json:"schema"`
	} `json:"parameters"`
	RequestBody *struct {
		Required bool                       `json:"required"`
		Content  map[string]json.RawMessage `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Content map[string]json.RawMessage `json:"content"`
	} `json:"responses"`
}

// Parse reads a trimmed description (as gen writes it). Its schemas are
// compiled on first use (a test checks a few operations; compiling all 61
// takes a fifth of a second): request schemas as GitHub states them,
// response schemas with "required" relaxed (see docs/github-conformance.md).
func Parse(data []byte) (*Description, error) {
	var raw rawDoc
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse the OpenAPI description: %w", err)
	}
	strict, err := newCompiler(data, false)
	if err != nil {
		return nil, err
	}
	relaxed, err := newCompiler(data, true)
	if err != nil {
		return nil, err
	}
	d := &Description{Version: raw.Info.Version, GHESLacks: raw.GHESLacks, GHESDiffers: raw.GHESDiffers, webhooks: map[string]*lazySchema{}}
	for name := range raw.Webhooks {
		// Payloads are held like responses: "required" relaxed.
		d.webhooks[name] = relaxed.lazy("/x-webhooks/" + escapePointer(name))
		d.Webhooks = append(d.Webhooks, name)
	}
	sort.Strings(d.Webhooks)
	for path, item := range raw.Paths {
		var methods []string
		if err := json.Unmarshal(item["x-methods"], &methods); err != nil {
			return nil, fmt.Errorf("parse %s x-methods: %w", path, err)
		}
		for method, body := range item {
			if strings.HasPrefix(method, "x-") {
				continue
			}
			op, err := parseOperation(strict, relaxed, path, method, body)
			if err != nil {
				return nil, err
			}
			op.Methods = methods
			d.Operations = append(d.Operations, op)
		}
	}
	sort.Slice(d.Operations, func(i, j int) bool {
		a, b := d.Operations[i], d.Operations[j]
		return a.Path < b.Path || a.Path == b.Path && a.Method < b.Method
	})
	return d, nil
}

func parseOperation(strict, relaxed *compiler, path, method string, data json.RawMessage) (*Operation, error) {
	var raw rawOperation
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse %s %s: %w", method, path, err)
	}
	ptr := "/paths/" + escapePointer(path) + "/" + method
	op := &Operation{ID: raw.OperationID, Method: strings.ToUpper(method), Path: path, segments: segments(path),
		responses: map[string]*lazySchema{}}
	for i, p := range raw.Parameters {
		param := Parameter{Name: p.Name, In: p.In, Required: p.Required}
		param.Type, _ = p.Schema["type"].(string)
		param.schema = strict.lazy(fmt.Sprintf("%s/parameters/%d/schema", ptr, i))
		op.Params = append(op.Params, param)
	}
	if rb := raw.RequestBody; rb != nil {
		op.bodyRequired = rb.Required
		if _, ok := rb.Content["application/json"]; ok {
			op.body = strict.lazy(ptr + "/requestBody/content/application~1json/schema")
		}
	}
	for status, r := range raw.Responses {
		op.Statuses = append(op.Statuses, status)
		op.responses[status] = nil
		for mediaType := range r.Content {
			if strings.Contains(mediaType, "json") {
				op.responses[status] = relaxed.lazy(ptr + "/responses/" + status + "/content/" + escapePointer(mediaType) + "/schema")
			}
		}
	}
	sort.Strings(op.Statuses)
	return op, nil
}

// CheckWebhook checks a webhook payload against the schema of GitHub's
// x-webhooks entry name (e.g. "check-run-completed").
func (d *Description) CheckWebhook(name string, body []byte) error {
	schema, ok := d.webhooks[name]
	if !ok {
		return fmt.Errorf("webhook %s: not in the trimmed description (githubsim.WebhookPayloads, then regenerate)", name)
	}
	v, err := decodeJSON(body)
	if err != nil {
		return fmt.Errorf("webhook %s: payload is not JSON: %w", name, err)
	}
	if err := schema.validate(v); err != nil {
		return fmt.Errorf("webhook %s: payload does not match its schema: %w", name, err)
	}
	return nil
}

// CompileAll compiles every schema now (they are compiled on first use
// otherwise) and returns the first error.
func (d *Description) CompileAll() error {
	for _, op := range d.Operations {
		all := []*lazySchema{op.body}
		for _, p := range op.Params {
			all = append(all, p.schema)
		}
		for _, r := range op.responses {
			all = append(all, r)
		}
		for _, l := range all {
			if l == nil {
				continue
			}
			if _, err := l.get(); err != nil {
				return fmt.Errorf("%s: %w", op, err)
			}
		}
	}
	return nil
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// Match finds the operation a request (method, path without /api/v3)
// is: the matching template with the most literal segments, so
// /issues/comments is the comments listing, not an issue numbered
// "comments". It reports false for a request GitHub has no operation
// for among those CogWorks uses.
func (d *Description) Match(method, path string) (*Operation, bool) {
	var best *Operation
	bestLiterals := -1
	sp := segments(path)
	for _, op := range d.Operations {
		if op.Method != method {
			continue
		}
		if n, ok := matchSegments(op.segments, sp); ok && n > bestLiterals {
			best, bestLiterals = op, n
		}
	}
	return best, best != nil
}

// Lookup returns the operation with method on the path template (any
// parameter names).
func (d *Description) Lookup(method, template string) (*Operation, bool) {
	for _, op := range d.Operations {
		if op.Method == method && SameTemplate(op.Path, template) {
			return op, true
		}
	}
	return nil, false
}

// Refuses reports whether GitHub refuses method on the path template
// (it serves other methods there, but not this one).
func (d *Description) Refuses(method, template string) bool {
	for _, op := range d.Operations {
		if SameTemplate(op.Path, template) {
			return !slices.Contains(op.Methods, method)
		}
	}
	return false
}

// decodeJSON decodes b as jsonschema expects instances (numbers kept
// exact).
func decodeJSON(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// is2xx reports whether status is a success.
func is2xx(status int) bool { return status >= http.StatusOK && status < http.StatusMultipleChoices }
