package modelgen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// matchLogic is genai-prices' model matcher: one clause set per node, or
// and and nested.
type matchLogic struct {
	Equals     *string      `json:"equals"`
	StartsWith *string      `json:"starts_with"`
	EndsWith   *string      `json:"ends_with"`
	Contains   *string      `json:"contains"`
	Regex      *string      `json:"regex"`
	Or         []matchLogic `json:"or"`
	And        []matchLogic `json:"and"`
}

// matches reports whether id satisfies m, as genai-prices decides it.
func (m matchLogic) matches(id string) (bool, error) {
	switch {
	case m.Equals != nil:
		return id == *m.Equals, nil
	case m.StartsWith != nil:
		return strings.HasPrefix(id, *m.StartsWith), nil
	case m.EndsWith != nil:
		return strings.HasSuffix(id, *m.EndsWith), nil
	case m.Contains != nil:
		return strings.Contains(id, *m.Contains), nil
	case m.Regex != nil:
		re, err := regexp.Compile(*m.Regex)
		if err != nil {
			return false, fmt.Errorf("match regex %q: %w", *m.Regex, err)
		}
		return re.MatchString(id), nil
	case m.Or != nil:
		for _, c := range m.Or {
			if ok, err := c.matches(id); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	case m.And != nil:
		for _, c := range m.And {
			if ok, err := c.matches(id); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// price reads one genai-prices price: a number or {base, tiers}; the
// base (short-context) figure is the one CogWorks budgets with.
func price(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var tiered struct {
		Base *float64 `json:"base"`
	}
	if json.Unmarshal(raw, &tiered) == nil && tiered.Base != nil {
		return *tiered.Base, true
	}
	return 0, false
}
