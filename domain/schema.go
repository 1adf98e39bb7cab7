package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaBaseURL is the $id prefix of every published Extension API schema.
const SchemaBaseURL = "https://cogworks.dev/schemas/extension-api/"

// Schema names of the envelopes; per-method schemas are named by
// ResultSchema and ParamsSchema.
const (
	SchemaRequest  = "request"
	SchemaResponse = "response"
)

// ResultSchema names the schema of method's result.
func ResultSchema(method string) string { return method + ".result" }

// ParamsSchema names the schema of method's params.
func ParamsSchema(method string) string { return method + ".params" }

// schemaSources maps each published schema name to the Go value it is
// generated from.
func schemaSources() map[string]any {
	return map[string]any{
		SchemaRequest:                         Request{},
		SchemaResponse:                        Response{},
		"diagnostic":                          Diagnostic{},
		ResultSchema(MethodHandshake):         HandshakeResult{},
		ResultSchema(MethodValidate):          DiagnosticsResult{},
		ResultSchema(MethodNormalise):         NormaliseResult{},
		ResultSchema(MethodReviewRules):       DiagnosticsResult{},
		ParamsSchema(MethodReviewRules):       ReviewRulesParams{},
		ResultSchema(MethodSimulate):          SimulateResult{},
		ParamsSchema(MethodSimulate):          SimulateParams{},
		ResultSchema(MethodValidateDeps):      DiagnosticsResult{},
		ResultSchema(MethodExtractInterfaces): ExtractResult{},
		ResultSchema(MethodDependencyGraph):   DependencyGraphResult{},
		ResultSchema(MethodRepoMap):           RepoMapResult{},
	}
}

// SchemaFileName is the checked-in file name of schema name.
func SchemaFileName(name string) string { return name + ".schema.json" }

// GenerateSchemas reflects every published schema from the Go protocol types
// and returns the indented JSON documents keyed by schema name. Unknown
// object members are allowed so that newer MINOR versions may add fields.
func GenerateSchemas() (map[string][]byte, error) {
	out := make(map[string][]byte)
	for name, v := range schemaSources() {
		r := &jsonschema.Reflector{AllowAdditionalProperties: true, Anonymous: true}
		s := r.Reflect(v)
		s.ID = jsonschema.ID(SchemaBaseURL + SchemaFileName(name))
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("marshal schema %s: %w", name, err)
		}
		out[name] = append(data, '\n')
	}
	return out, nil
}

// SchemaNames returns the published schema names, sorted.
func SchemaNames() []string {
	var names []string
	for n := range schemaSources() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Schemas validates JSON documents against the compiled Extension API
// schemas. It is safe for concurrent use.
type Schemas struct {
	compiled map[string]*validator.Schema
}

// compiledSchemas holds the one compilation of the published schemas. They
// are generated from this package's own types, so every compilation yields
// the same immutable value, and compiling costs milliseconds (7 ms, see
// BenchmarkCompileSchemas) that every client and every serve job would
// otherwise pay again.
var compiledSchemas = sync.OnceValues(compileSchemas)

// CompileSchemas returns the compiled published schemas. They are compiled
// on the first call and shared by every later one.
func CompileSchemas() (*Schemas, error) {
	return compiledSchemas()
}

func compileSchemas() (*Schemas, error) {
	docs, err := GenerateSchemas()
	if err != nil {
		return nil, err
	}
	c := validator.NewCompiler()
	for name, data := range docs {
		doc, err := validator.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", name, err)
		}
		if err := c.AddResource(SchemaBaseURL+SchemaFileName(name), doc); err != nil {
			return nil, fmt.Errorf("add schema %s: %w", name, err)
		}
	}
	s := &Schemas{compiled: make(map[string]*validator.Schema, len(docs))}
	for name := range docs {
		sch, err := c.Compile(SchemaBaseURL + SchemaFileName(name))
		if err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", name, err)
		}
		s.compiled[name] = sch
	}
	return s, nil
}

// Has reports whether a schema called name exists.
func (s *Schemas) Has(name string) bool {
	_, ok := s.compiled[name]
	return ok
}

// Validate checks data against schema name. The error names the violating
// location in the document.
func (s *Schemas) Validate(name string, data []byte) error {
	sch, ok := s.compiled[name]
	if !ok {
		return fmt.Errorf("no schema named %q", name)
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("decode JSON for %s: %w", name, err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("against schema %s: %w", SchemaFileName(name), err)
	}
	return nil
}
