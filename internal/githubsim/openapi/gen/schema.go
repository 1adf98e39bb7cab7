package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// dropKeys are schema keywords that only document: dropping them keeps
// the trimmed description small without changing what validates.
var dropKeys = map[string]bool{
	"description": true, "example": true, "examples": true, "externalDocs": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"xml": true, "discriminator": true,
}

// internMin is the encoded size from which a titled schema moves to
// components/schemas: the dereferenced description repeats the same
// Issue, Repository and User schemas in every operation.
const internMin = 1024

// interner moves large shared schemas to components/schemas, named after
// their titles.
type interner struct {
	// min is the encoded size from which a schema is interned (below 0:
	// never).
	min     int
	schemas map[string]any
	byJSON  map[string]string
}

func newInterner() *interner {
	return &interner{min: internMin, schemas: map[string]any{}, byJSON: map[string]string{}}
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// schema returns a cleaned copy of s, large titled parts replaced by
// $refs into components/schemas.
func (in *interner) schema(s any) any {
	switch v := s.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range v {
			if dropKeys[k] || strings.HasPrefix(k, "x-") || k == "title" {
				continue
			}
			if k == "properties" {
				props := map[string]any{}
				pm, _ := val.(map[string]any)
				for name, p := range pm {
					props[name] = in.schema(p)
				}
				out[k] = props
				continue
			}
			out[k] = in.schema(val)
		}
		title, _ := v["title"].(string)
		if title == "" || in.min < 0 {
			return out
		}
		b, err := json.Marshal(out)
		if err != nil || len(b) < in.min {
			return out
		}
		return map[string]any{"$ref": "#/components/schemas/" + in.name(title, string(b), out)}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = in.schema(e)
		}
		return out
	}
	return s
}

// name returns the component name of a schema, registering it on first
// sight; two different schemas with one title get numbered names.
func (in *interner) name(title, encoded string, s map[string]any) string {
	if n, ok := in.byJSON[encoded]; ok {
		return n
	}
	base := strings.Trim(nonName.ReplaceAllString(strings.ToLower(title), "-"), "-")
	n := base
	for i := 2; in.schemas[n] != nil; i++ {
		n = fmt.Sprintf("%s-%d", base, i)
	}
	in.schemas[n] = s
	in.byJSON[encoded] = n
	return n
}
