package scenario

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// condition reports whether a when clause holds; when it does not, why says
// which part failed.
type condition func(obs Observation) (ok bool, why string)

// whenKeys documents the supported when conditions. All are AND-ed.
//
//	test_ran        string  a test with this exact name ran
//	test_passed     string  that test ran and passed
//	test_failed     string  that test ran and failed
//	exit_code       integer the trajectory exited with this code
//	output_contains string  the output contains this text (case-sensitive)
//	output_matches  string  the output matches this regular expression
//	file_exists     string  the trajectory produced this file
func whenKeys() []string {
	return []string{"exit_code", "file_exists", "output_contains", "output_matches", "test_failed", "test_passed", "test_ran"}
}

func compileWhen(when map[string]any) (condition, error) {
	keys := make([]string, 0, len(when))
	for k := range when {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	p := params(when)
	conds := make([]condition, 0, len(keys))
	for _, k := range keys {
		c, err := compileCondition(k, p)
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				return nil, &fieldError{field: "when." + fe.field, msg: fe.msg}
			}
			return nil, err
		}
		conds = append(conds, c)
	}
	return func(obs Observation) (bool, string) {
		for _, c := range conds {
			if ok, why := c(obs); !ok {
				return false, why
			}
		}
		return true, ""
	}, nil
}

func compileCondition(key string, p params) (condition, error) {
	switch key {
	case "test_ran", "test_passed", "test_failed":
		name, err := p.str(key, true)
		if err != nil {
			return nil, err
		}
		return func(obs Observation) (bool, string) {
			for _, t := range obs.Tests {
				if t.Name != name {
					continue
				}
				switch {
				case key == "test_passed" && !t.Passed:
					return false, fmt.Sprintf("test %q did not pass", name)
				case key == "test_failed" && t.Passed:
					return false, fmt.Sprintf("test %q did not fail", name)
				}
				return true, ""
			}
			return false, fmt.Sprintf("test %q did not run", name)
		}, nil
	case "exit_code":
		f, ok := toFloat(p[key])
		if !ok || f != math.Trunc(f) {
			return nil, fieldErrorf(key, "must be an integer, got %s", typeName(p[key]))
		}
		want := int(f)
		return func(obs Observation) (bool, string) {
			if obs.ExitCode != want {
				return false, fmt.Sprintf("exit code %d is not %d", obs.ExitCode, want)
			}
			return true, ""
		}, nil
	case "output_contains":
		text, err := p.str(key, true)
		if err != nil {
			return nil, err
		}
		return func(obs Observation) (bool, string) {
			if !strings.Contains(obs.Output, text) {
				return false, fmt.Sprintf("output does not contain %q", text)
			}
			return true, ""
		}, nil
	case "output_matches":
		re, err := p.regexp(key, true)
		if err != nil {
			return nil, err
		}
		return func(obs Observation) (bool, string) {
			if !re.MatchString(obs.Output) {
				return false, fmt.Sprintf("output does not match %q", re.String())
			}
			return true, ""
		}, nil
	case "file_exists":
		path, err := p.str(key, true)
		if err != nil {
			return nil, err
		}
		return func(obs Observation) (bool, string) {
			if _, ok := obs.Files[path]; !ok {
				return false, fmt.Sprintf("file %s was not produced", path)
			}
			return true, ""
		}, nil
	}
	return nil, fieldErrorf(key, "unknown when condition (known: %s)", strings.Join(whenKeys(), ", "))
}
