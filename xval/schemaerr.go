package xval

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaMessages flattens a validation error into one "field: problem"
// message per leaf cause, sorted and without duplicates.
func schemaMessages(ve *jsonschema.ValidationError) []string {
	p := message.NewPrinter(language.English)
	seen := map[string]bool{}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		for _, msg := range leafMessages(e, p) {
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

func leafMessages(e *jsonschema.ValidationError, p *message.Printer) []string {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return []string{fmt.Sprintf("%s: expected %s, got %s", fieldPath(loc), strings.Join(k.Want, " or "), k.Got)}
	case *kind.Required:
		var out []string
		for _, m := range k.Missing {
			out = append(out, fmt.Sprintf("%s: required field is missing", fieldPath(append(clone(loc), m))))
		}
		return out
	case *kind.AdditionalProperties:
		var out []string
		for _, m := range k.Properties {
			out = append(out, fmt.Sprintf("%s: unknown field", fieldPath(append(clone(loc), m))))
		}
		return out
	case *kind.Pattern:
		if len(loc) == 1 && loc[0] == "version" {
			return []string{fmt.Sprintf("version: expected a semantic version MAJOR.MINOR.PATCH, got %q", k.Got)}
		}
		return []string{fmt.Sprintf("%s: %q does not match the pattern %s", fieldPath(loc), k.Got, k.Want)}
	case *kind.Const:
		// Only reached for the per-kind "kind" const, which cannot fail
		// after the if/then dispatch; report it plainly anyway.
		return []string{fmt.Sprintf("%s: %s", fieldPath(loc), k.LocalizedString(p))}
	}
	return []string{fmt.Sprintf("%s: %s", fieldPath(loc), e.ErrorKind.LocalizedString(p))}
}

// fieldPath renders an instance location as a dotted path with [n] for
// array indices ("parameters.messages.items[0].can_id"); the document root
// is "(root)".
func fieldPath(loc []string) string {
	if len(loc) == 0 {
		return "(root)"
	}
	var b strings.Builder
	for i, seg := range loc {
		if _, err := strconv.Atoi(seg); err == nil && i > 0 {
			fmt.Fprintf(&b, "[%s]", seg)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func clone(ss []string) []string { return append([]string(nil), ss...) }
