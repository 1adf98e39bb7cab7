package openapi

import "strings"

// segments splits a path or path template into its segments.
func segments(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

func isParam(seg string) bool {
	return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}")
}

// SameTemplate reports whether two path templates name the same
// operation path: the same literal segments with parameters in the same
// places, whatever the parameters are called ("{number}" and
// "{issue_number}" are the same, as OpenAPI path templating has it).
func SameTemplate(a, b string) bool {
	sa, sb := segments(a), segments(b)
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		pa, pb := isParam(sa[i]), isParam(sb[i])
		if pa != pb || !pa && sa[i] != sb[i] {
			return false
		}
	}
	return true
}

// restParam reports whether seg is a parameter GitHub lets carry slashes
// when it ends a path: a git ref ("heads/feature/x"), a file path or a branch name.
func restParam(seg string) bool {
	switch strings.Trim(seg, "{}") {
	case "ref", "path", "branch":
		return true
	}
	return false
}

// matchSegments matches a request path against a template, both split
// into segments. It returns the number of literal segments matched
// (higher is more specific) and whether it matched at all.
func matchSegments(st, sp []string) (int, bool) {
	literals := 0
	for i, seg := range st {
		if i >= len(sp) {
			return 0, false
		}
		if !isParam(seg) {
			if seg != sp[i] {
				return 0, false
			}
			literals++
			continue
		}
		if sp[i] == "" {
			return 0, false
		}
		if i == len(st)-1 && restParam(seg) {
			return literals, true
		}
	}
	return literals, len(st) == len(sp)
}
