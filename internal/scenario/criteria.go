package scenario

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// evalFunc decides whether a compiled criterion holds on an observation.
// err is reserved for infrastructure failures (the judge port).
type evalFunc func(ctx context.Context, obs Observation, judge Judge) (passed bool, reason string, err error)

// CheckTypes returns the supported check type names; output.<field> checks
// are written with the field appended, e.g. "output.status".
func CheckTypes() []string {
	return []string{
		"exit_code", "content_includes", "content_matches", "json_schema", "json_path",
		"file_exists", "file_matches", "duration", "llm_judge", "output.<field>",
	}
}

// Validate reports whether the criterion is well-formed: a known check
// type, all required parameters, no unknown parameters, valid regular
// expressions, schemas and paths, and valid when conditions. Each error
// names the offending field, e.g. "pattern: invalid regular expression".
func (c Criterion) Validate() error {
	if _, err := compileWhen(c.When); err != nil {
		return err
	}
	_, err := compileCheck(c)
	return err
}

// Evaluate runs one criterion on one observation. It is deterministic and
// does no I/O except through judge for llm_judge. A when condition that does
// not hold yields a passed, skipped result carrying the reason. An invalid
// criterion or a judge failure is returned as an error.
func Evaluate(ctx context.Context, c Criterion, obs Observation, judge Judge) (CriterionResult, error) {
	res := CriterionResult{Check: c.Check, Message: c.Message}
	when, err := compileWhen(c.When)
	if err != nil {
		return res, fmt.Errorf("criterion %s: %w", c.Check, err)
	}
	eval, err := compileCheck(c)
	if err != nil {
		return res, fmt.Errorf("criterion %s: %w", c.Check, err)
	}
	if ok, why := when(obs); !ok {
		res.Passed, res.Skipped, res.Reason = true, true, "skipped: "+why
		return res, nil
	}
	passed, reason, err := eval(ctx, obs, judge)
	if err != nil {
		return res, fmt.Errorf("criterion %s: %w", c.Check, err)
	}
	res.Passed, res.Reason = passed, reason
	return res, nil
}

func compileCheck(c Criterion) (evalFunc, error) {
	p := params(c.Params)
	switch {
	case c.Check == "exit_code":
		return compileExitCode(p)
	case c.Check == "content_includes":
		return compileContentIncludes(p)
	case c.Check == "content_matches":
		return compileContentMatches(p)
	case c.Check == "json_schema":
		return compileJSONSchema(p)
	case c.Check == "json_path":
		return compileJSONPath(p)
	case c.Check == "file_exists":
		return compileFileExists(p)
	case c.Check == "file_matches":
		return compileFileMatches(p)
	case c.Check == "duration":
		return compileDuration(p)
	case c.Check == "llm_judge":
		return compileLLMJudge(p)
	case c.Check == "output":
		field, err := p.str("field", true)
		if err != nil {
			return nil, err
		}
		return compileOutputField(field, p, "field")
	case strings.HasPrefix(c.Check, "output."):
		field := strings.TrimPrefix(c.Check, "output.")
		if field == "" {
			return nil, fieldErrorf("check", "output check %q names no field", c.Check)
		}
		return compileOutputField(field, p)
	case c.Check == "":
		return nil, fieldErrorf("check", "missing required check type")
	}
	return nil, fieldErrorf("check", "unknown check type %q (known: %s)", c.Check, strings.Join(CheckTypes(), ", "))
}

func compileExitCode(p params) (evalFunc, error) {
	if err := p.only("equals"); err != nil {
		return nil, err
	}
	want, _, err := p.integer("equals", true)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		if obs.ExitCode == want {
			return true, fmt.Sprintf("exit code %d", obs.ExitCode), nil
		}
		return false, fmt.Sprintf("exit code %d, want %d", obs.ExitCode, want), nil
	}, nil
}

func compileContentIncludes(p params) (evalFunc, error) {
	if err := p.only("patterns", "case_sensitive"); err != nil {
		return nil, err
	}
	patterns, err := p.strList("patterns")
	if err != nil {
		return nil, err
	}
	caseSensitive, _, err := p.boolean("case_sensitive")
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		out := obs.Output
		if !caseSensitive {
			out = strings.ToLower(out)
		}
		var missing []string
		for _, pat := range patterns {
			needle := pat
			if !caseSensitive {
				needle = strings.ToLower(pat)
			}
			if !strings.Contains(out, needle) {
				missing = append(missing, fmt.Sprintf("%q", pat))
			}
		}
		if len(missing) > 0 {
			return false, "output is missing " + strings.Join(missing, ", "), nil
		}
		return true, "output includes every pattern", nil
	}, nil
}

func compileContentMatches(p params) (evalFunc, error) {
	if err := p.only("pattern"); err != nil {
		return nil, err
	}
	re, err := p.regexp("pattern", true)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		if re.MatchString(obs.Output) {
			return true, fmt.Sprintf("output matches %q", re.String()), nil
		}
		return false, fmt.Sprintf("output does not match %q", re.String()), nil
	}, nil
}

func compileFileExists(p params) (evalFunc, error) {
	if err := p.only("path"); err != nil {
		return nil, err
	}
	path, err := p.str("path", true)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		if _, ok := obs.Files[path]; ok {
			return true, fmt.Sprintf("file %s exists", path), nil
		}
		return false, fmt.Sprintf("file %s was not produced", path), nil
	}, nil
}

func compileFileMatches(p params) (evalFunc, error) {
	if err := p.only("path", "pattern"); err != nil {
		return nil, err
	}
	path, err := p.str("path", true)
	if err != nil {
		return nil, err
	}
	re, err := p.regexp("pattern", true)
	if err != nil {
		return nil, err
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		content, ok := obs.Files[path]
		if !ok {
			return false, fmt.Sprintf("file %s was not produced", path), nil
		}
		if re.MatchString(content) {
			return true, fmt.Sprintf("file %s matches %q", path, re.String()), nil
		}
		return false, fmt.Sprintf("file %s does not match %q", path, re.String()), nil
	}, nil
}

func compileDuration(p params) (evalFunc, error) {
	if err := p.only("max_ms"); err != nil {
		return nil, err
	}
	maxMS, ok, err := p.number("max_ms")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fieldErrorf("max_ms", "missing required parameter")
	}
	if maxMS <= 0 {
		return nil, fieldErrorf("max_ms", "must be positive, got %g", maxMS)
	}
	limit := time.Duration(maxMS * float64(time.Millisecond))
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		if obs.Duration <= limit {
			return true, fmt.Sprintf("took %s (limit %s)", obs.Duration, limit), nil
		}
		return false, fmt.Sprintf("took %s, over the %s limit", obs.Duration, limit), nil
	}, nil
}

func compileLLMJudge(p params) (evalFunc, error) {
	if err := p.only("criteria", "min_score"); err != nil {
		return nil, err
	}
	criteria, err := p.str("criteria", true)
	if err != nil {
		return nil, err
	}
	minScore, hasMin, err := p.number("min_score")
	if err != nil {
		return nil, err
	}
	if hasMin && (minScore < 0 || minScore > 1) {
		return nil, fieldErrorf("min_score", "must be between 0 and 1, got %g", minScore)
	}
	return func(ctx context.Context, obs Observation, judge Judge) (bool, string, error) {
		if judge == nil {
			return false, "no LLM judge is configured, so llm_judge cannot be evaluated", nil
		}
		passed, score, reasoning, err := judge.Judge(ctx, criteria, obs)
		if err != nil {
			return false, "", fmt.Errorf("llm judge: %w", err)
		}
		if hasMin {
			passed = score >= minScore
		}
		verdict := fmt.Sprintf("judge score %.2f", score)
		if hasMin {
			verdict += fmt.Sprintf(" (min %.2f)", minScore)
		}
		if reasoning != "" {
			verdict += ": " + reasoning
		}
		return passed, verdict, nil
	}, nil
}

// compileOutputField builds an output.<field> check. extra lists parameters
// besides the comparison (the "field" key of the long form).
func compileOutputField(field string, p params, extra ...string) (evalFunc, error) {
	ops := []string{"equals", "matches", "greater_than", "not_empty"}
	if err := p.only(append(ops, extra...)...); err != nil {
		return nil, err
	}
	var given []string
	for _, op := range ops {
		if p.has(op) {
			given = append(given, op)
		}
	}
	if len(given) != 1 {
		return nil, fieldErrorf("check", "output.%s needs exactly one of equals, matches, greater_than, not_empty (got %d)", field, len(given))
	}
	var test func(v any) (bool, string)
	switch given[0] {
	case "equals":
		want := normalise(p["equals"])
		test = func(v any) (bool, string) {
			if reflect.DeepEqual(normalise(v), want) {
				return true, "equals " + render(want)
			}
			return false, fmt.Sprintf("is %s, want %s", render(normalise(v)), render(want))
		}
	case "matches":
		re, err := p.regexp("matches", true)
		if err != nil {
			return nil, err
		}
		test = func(v any) (bool, string) {
			s, ok := v.(string)
			if !ok {
				s = render(normalise(v))
			}
			if re.MatchString(s) {
				return true, fmt.Sprintf("matches %q", re.String())
			}
			return false, fmt.Sprintf("is %q, which does not match %q", s, re.String())
		}
	case "greater_than":
		limit, _, err := p.number("greater_than")
		if err != nil {
			return nil, err
		}
		test = func(v any) (bool, string) {
			f, ok := toFloat(v)
			if !ok {
				return false, fmt.Sprintf("is %s, not a number", typeName(v))
			}
			if f > limit {
				return true, fmt.Sprintf("%g > %g", f, limit)
			}
			return false, fmt.Sprintf("is %g, want > %g", f, limit)
		}
	case "not_empty":
		want, _, err := p.boolean("not_empty")
		if err != nil {
			return nil, err
		}
		test = func(v any) (bool, string) {
			if empty(v) != want {
				return true, "emptiness as expected"
			}
			if want {
				return false, "is empty"
			}
			return false, "is not empty"
		}
	}
	return func(_ context.Context, obs Observation, _ Judge) (bool, string, error) {
		v, ok := lookupField(obs.Fields, field)
		if !ok {
			return false, fmt.Sprintf("output field %s is absent", field), nil
		}
		passed, why := test(v)
		return passed, fmt.Sprintf("output field %s %s", field, why), nil
	}, nil
}

// lookupField resolves a dotted field name, trying the whole name first so
// flat keys containing dots still work.
func lookupField(fields map[string]any, name string) (any, bool) {
	if v, ok := fields[name]; ok {
		return v, true
	}
	head, rest, found := strings.Cut(name, ".")
	if !found {
		return nil, false
	}
	v, ok := fields[head]
	if !ok {
		return nil, false
	}
	m, ok := normalise(v).(map[string]any)
	if !ok {
		return nil, false
	}
	return lookupField(m, rest)
}

func empty(v any) bool {
	if v == nil {
		return true
	}
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s) == ""
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	}
	return false
}
