// Command gen trims GitHub's OpenAPI description (npm package
// @octokit/openapi) to the operations CogWorks uses: every route the
// GitHub simulator serves. It keeps their parameters, request bodies and
// response schemas, drops prose and examples, and records which of them
// GitHub Enterprise Server versions lack.
//
//	npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz
//	OCTOKIT_OPENAPI=$PWD/package go generate ./internal/githubsim/openapi
//
// which runs, in the package's directory,
//
//	go run ./gen -pkg $OCTOKIT_OPENAPI -out testdata/api.github.com.trimmed.json
//
// (-pkg reads generated/api.github.com.deref.json and every
// generated/ghes-X.Y.deref.json; -spec and -ghes VERSION=PATH name files
// directly.)
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// ghesFlags collects repeated -ghes VERSION=PATH flags.
type ghesFlags map[string]string

func (g ghesFlags) String() string { return fmt.Sprint(map[string]string(g)) }

func (g ghesFlags) Set(v string) error {
	version, path, ok := strings.Cut(v, "=")
	if !ok || version == "" || path == "" {
		return fmt.Errorf("-ghes %q: want VERSION=PATH", v)
	}
	g[version] = path
	return nil
}

type options struct {
	pkg, spec, out string
	ghes           ghesFlags
}

func run(args []string, stderr io.Writer) error {
	opts := options{ghes: ghesFlags{}}
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.pkg, "pkg", "", "the unpacked @octokit/openapi package: -spec is its generated/api.github.com.deref.json, -ghes every generated/ghes-X.Y.json")
	fs.StringVar(&opts.spec, "spec", "", "path to api.github.com.deref.json of @octokit/openapi")
	fs.Var(opts.ghes, "ghes", "VERSION=PATH of a GHES description (e.g. 3.17=ghes-3.17.json); repeatable")
	fs.StringVar(&opts.out, "out", "", "where to write the trimmed description")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := opts.fromPackage(); err != nil {
		return err
	}
	if opts.spec == "" || opts.out == "" {
		return errors.New("-pkg (or -spec) and -out are required (go generate: set OCTOKIT_OPENAPI to the unpacked @octokit/openapi package)")
	}
	ops, err := simOperations()
	if err != nil {
		return err
	}
	full, err := readJSON(opts.spec)
	if err != nil {
		return err
	}
	pkgVersion, err := packageVersion(opts.spec)
	if err != nil {
		return err
	}
	trimmed, err := trim(full, ops, githubsim.WebhookPayloads()...)
	if err != nil {
		return fmt.Errorf("trim %s: %w", opts.spec, err)
	}
	// From here on, name operations as GitHub's description spells them.
	if ops, err = resolve(full, ops); err != nil {
		return fmt.Errorf("trim %s: %w", opts.spec, err)
	}
	ghes, differs := map[string][]string{}, map[string][]string{}
	for version, path := range opts.ghes {
		desc, err := readJSON(path)
		if err != nil {
			return err
		}
		if ghes[version], differs[version], err = compareGHES(full, desc, ops); err != nil {
			return fmt.Errorf("ghes %s (%s): %w", version, path, err)
		}
	}
	trimmed["info"] = map[string]any{
		"source":     "npm package @octokit/openapi@" + pkgVersion + ", generated/" + filepath.Base(opts.spec),
		"license":    "MIT (Copyright (c) 2020 Octokit contributors); the description itself is GitHub's, github/rest-api-description (MIT)",
		"openapi":    full["openapi"],
		"version":    pkgVersion,
		"regenerate": "OCTOKIT_OPENAPI=<unpacked npm package> go generate ./internal/githubsim/openapi (see docs/github-conformance.md)",
		"trimmed":    "only the operations the GitHub simulator serves; descriptions, examples and titles dropped; large shared schemas moved to components/schemas",
	}
	trimmed["x-ghes-lacks"] = ghes
	trimmed["x-ghes-differs"] = differs
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(trimmed); err != nil {
		return fmt.Errorf("encode %s: %w", opts.out, err)
	}
	if err := os.WriteFile(opts.out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", opts.out, err)
	}
	fmt.Fprintf(stderr, "wrote %s: %d operations, %d bytes\n", opts.out, len(ops), buf.Len())
	return nil
}

// fromPackage fills -spec and -ghes from -pkg.
func (o *options) fromPackage() error {
	if o.pkg == "" {
		return nil
	}
	gen := filepath.Join(o.pkg, "generated")
	if o.spec == "" {
		o.spec = filepath.Join(gen, "api.github.com.deref.json")
	}
	if len(o.ghes) > 0 {
		return nil
	}
	// The dereferenced files, whose request schemas compare as they are.
	files, err := filepath.Glob(filepath.Join(gen, "ghes-*.deref.json"))
	if err != nil {
		return fmt.Errorf("list GHES descriptions in %s: %w", gen, err)
	}
	for _, f := range files {
		version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "ghes-"), ".deref.json")
		o.ghes[version] = f
	}
	return nil
}

// op is one operation: an HTTP method and a path template.
type op struct{ method, path string }

// simOperations lists the operations the simulator's routes serve.
func simOperations() ([]op, error) {
	var ops []op
	for _, r := range githubsim.New().Routes() {
		for _, p := range r.Operations {
			ops = append(ops, op{method: strings.ToLower(r.Method), path: p})
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("the simulator serves no routes")
	}
	return ops, nil
}

func readJSON(path string) (map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return doc, nil
}

// packageVersion reads the npm package's version from the package.json
// above generated/.
func packageVersion(spec string) (string, error) {
	path := filepath.Join(filepath.Dir(spec), "..", "package.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the package version: %w", err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version == "" {
		return "", fmt.Errorf("parse %s: want a version (%v)", path, err)
	}
	if pkg.Name != "@octokit/openapi" {
		return "", fmt.Errorf("%s is package %q, want @octokit/openapi", path, pkg.Name)
	}
	return pkg.Version, nil
}

// findPath returns the description's path key with op's shape.
func findPath(paths map[string]any, o op) (string, error) {
	// A route spelled as GitHub spells the path is that path, even where
	// another template matches too (compare/{basehead} and the older
	// compare/{base}...{head}).
	if _, ok := paths[o.path]; ok {
		return o.path, nil
	}
	var found []string
	for key := range paths {
		if openapi.SameTemplate(key, o.path) {
			found = append(found, key)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no path like %s", o.path)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s is ambiguous: %v", o.path, found)
}

// resolve renames ops' path templates to the description's spelling.
func resolve(full map[string]any, ops []op) ([]op, error) {
	paths, _ := full["paths"].(map[string]any)
	out := make([]op, 0, len(ops))
	for _, o := range ops {
		key, err := findPath(paths, o)
		if err != nil {
			return nil, err
		}
		out = append(out, op{method: o.method, path: key})
	}
	return out, nil
}

// compareGHES lists the operations of ops a GHES description lacks, and
// those it has whose parameters or request body differ from full's
// ("METHOD /path: parameters", "...: request body"): what CogWorks sends
// there might be refused.
func compareGHES(full, desc map[string]any, ops []op) (lacks, differs []string, err error) {
	paths, ok := desc["paths"].(map[string]any)
	if !ok {
		return nil, nil, errors.New("no paths")
	}
	fullPaths, _ := full["paths"].(map[string]any)
	lacks, differs = []string{}, []string{}
	for _, o := range ops {
		name := strings.ToUpper(o.method) + " " + o.path
		key, err := findPath(paths, o)
		var theirs map[string]any
		if err == nil {
			item, _ := paths[key].(map[string]any)
			theirs, _ = item[o.method].(map[string]any)
		}
		if theirs == nil {
			lacks = append(lacks, name)
			continue
		}
		fullItem, _ := fullPaths[o.path].(map[string]any)
		ours, _ := fullItem[o.method].(map[string]any)
		a, b := requestShape(ours), requestShape(theirs)
		if a["parameters"] != b["parameters"] {
			differs = append(differs, name+": parameters")
		}
		if a["requestBody"] != b["requestBody"] {
			differs = append(differs, name+": request body")
		}
	}
	sort.Strings(lacks)
	sort.Strings(differs)
	return lacks, differs, nil
}

// requestShape is the canonical JSON of what an operation accepts, prose
// dropped: its parameters and its request body.
func requestShape(operation map[string]any) map[string]string {
	in := &interner{min: -1, schemas: map[string]any{}, byJSON: map[string]string{}}
	t := trimOperation(operation, in)
	out := map[string]string{}
	for _, k := range []string{"parameters", "requestBody"} {
		b, _ := json.Marshal(t[k]) // maps of JSON values always marshal
		out[k] = string(b)
	}
	return out
}

var httpMethods = []string{"get", "put", "post", "delete", "patch", "head", "options"}

// trim builds the trimmed description of ops from the full one.
// trim keeps ops and, under x-webhooks, the payload schemas of webhooks
// (names of GitHub's x-webhooks entries, e.g. "check-run-completed").
func trim(full map[string]any, ops []op, webhooks ...string) (map[string]any, error) {
	paths, ok := full["paths"].(map[string]any)
	if !ok {
		return nil, errors.New("no paths")
	}
	in := newInterner()
	out := map[string]any{}
	for _, o := range ops {
		key, err := findPath(paths, o)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(o.method), o.path, err)
		}
		item, _ := paths[key].(map[string]any)
		operation, ok := item[o.method].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s %s: GitHub's description has no such operation", strings.ToUpper(o.method), key)
		}
		dst, _ := out[key].(map[string]any)
		if dst == nil {
			dst = map[string]any{}
			var methods []string
			for _, m := range httpMethods {
				if item[m] != nil {
					methods = append(methods, strings.ToUpper(m))
				}
			}
			// Every method GitHub serves on the path, so a test can tell
			// which ones it refuses.
			dst["x-methods"] = methods
			out[key] = dst
		}
		dst[o.method] = trimOperation(operation, in)
	}
	hooks := map[string]any{}
	all, _ := full["x-webhooks"].(map[string]any)
	for _, name := range webhooks {
		hook, _ := all[name].(map[string]any)
		post, _ := hook["post"].(map[string]any)
		rb, _ := post["requestBody"].(map[string]any)
		content, _ := rb["content"].(map[string]any)
		media, _ := content["application/json"].(map[string]any)
		if media["schema"] == nil {
			return nil, fmt.Errorf("webhook %s: GitHub's description has no payload schema for it", name)
		}
		hooks[name] = in.schema(media["schema"])
	}
	return map[string]any{
		"openapi":    full["openapi"],
		"paths":      out,
		"x-webhooks": hooks,
		"components": map[string]any{"schemas": in.schemas},
	}, nil
}

func trimOperation(operation map[string]any, in *interner) map[string]any {
	t := map[string]any{"operationId": operation["operationId"]}
	var params []any
	for _, p := range asSlice(operation["parameters"]) {
		pm, _ := p.(map[string]any)
		if pm["in"] == "header" {
			continue
		}
		keep := map[string]any{"name": pm["name"], "in": pm["in"], "schema": in.schema(pm["schema"])}
		if pm["required"] == true {
			keep["required"] = true
		}
		params = append(params, keep)
	}
	if params != nil {
		t["parameters"] = params
	}
	if rb, ok := operation["requestBody"].(map[string]any); ok {
		t["requestBody"] = map[string]any{"required": rb["required"] == true, "content": trimContent(rb["content"], in)}
	}
	responses := map[string]any{}
	if rs, ok := operation["responses"].(map[string]any); ok {
		for status, r := range rs {
			rm, _ := r.(map[string]any)
			keep := map[string]any{}
			if c := trimContent(rm["content"], in); len(c) > 0 {
				keep["content"] = c
			}
			responses[status] = keep
		}
	}
	t["responses"] = responses
	return t
}

// trimContent keeps the JSON media types' schemas.
func trimContent(content any, in *interner) map[string]any {
	cm, _ := content.(map[string]any)
	out := map[string]any{}
	for mediaType, v := range cm {
		if !strings.Contains(mediaType, "json") {
			out[mediaType] = map[string]any{}
			continue
		}
		vm, _ := v.(map[string]any)
		out[mediaType] = map[string]any{"schema": in.schema(vm["schema"])}
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
