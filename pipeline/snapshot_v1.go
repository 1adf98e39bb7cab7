package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/planner"
)

// The 1.x snapshot kept stage-owned values in "data", a map of strings,
// several of them JSON documents. These are its keys.
const (
	v1Interfaces      = "interfaces"       // JSON []InterfaceDecl
	v1Plan            = "plan"             // JSON planner.Plan, or its item list
	v1PlanItemPrefix  = "plan/"            // JSON planner.SubWorkItem (read, never written)
	v1ScenarioHistory = "scenario_history" // JSON map[string][]bool
	v1FeedbackPrefix  = "feedback/"        // plain text
	v1FilesPrefix     = "files/"           // JSON []string
	v1FindingsPrefix  = "findings/"        // JSON []review.Finding
)

// decodeV1 reads the "data" map of a 1.x snapshot raw into the typed
// fields of s and the 3.x places of old (migrateV3 then folds those). A
// value that does not decode is an error naming its key: the values were
// written by CogWorks, so one that is unreadable was damaged, and guessing
// would lose work. Keys no 1.x build wrote are ignored, as fields a newer
// MINOR added are.
func decodeV1(raw string, s *Snapshot, old *snapshotV3) error {
	var v1 struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal([]byte(raw), &v1); err != nil {
		return describeJSONError(raw, err)
	}
	// 1.x had none of the typed fields: whatever JSON keys happen to share
	// their names are not theirs.
	s.Interfaces, s.ScenarioHistory = nil, nil
	old.Plan, old.SWIs = nil, nil

	keys := make([]string, 0, len(v1.Data))
	for k := range v1.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys) // "plan" before "plan/<id>", and errors are deterministic
	for _, k := range keys {
		if err := migrateV1Key(s, old, k, v1.Data[k]); err != nil {
			return fmt.Errorf("data key %q: %w", k, err)
		}
	}
	return nil
}

// migrateV1Key moves one 1.x data value into its typed field.
func migrateV1Key(s *Snapshot, old *snapshotV3, key, value string) error {
	if value == "" {
		return nil
	}
	switch {
	case key == v1Interfaces:
		var decls []InterfaceDecl
		err := json.Unmarshal([]byte(value), &decls)
		s.Interfaces = nilIfNone(decls)
		return err
	case key == v1Plan:
		items, err := decodeV1Plan(value)
		old.Plan = items
		return err
	case key == v1ScenarioHistory:
		var h map[string][]bool
		if err := json.Unmarshal([]byte(value), &h); err != nil {
			return err
		}
		if len(h) > 0 {
			s.ScenarioHistory = h
		}
		return nil
	case strings.HasPrefix(key, v1PlanItemPrefix):
		var it planner.SubWorkItem
		if err := json.Unmarshal([]byte(value), &it); err != nil {
			return err
		}
		if it.ID != "" && !slices.ContainsFunc(old.Plan, func(p planner.SubWorkItem) bool { return p.ID == it.ID }) {
			old.Plan = append(old.Plan, it)
		}
		return nil
	case strings.HasPrefix(key, v1FeedbackPrefix):
		old.swi(strings.TrimPrefix(key, v1FeedbackPrefix)).Feedback = value
		return nil
	case strings.HasPrefix(key, v1FilesPrefix):
		return json.Unmarshal([]byte(value), &old.swi(strings.TrimPrefix(key, v1FilesPrefix)).Files)
	case strings.HasPrefix(key, v1FindingsPrefix):
		return json.Unmarshal([]byte(value), &old.swi(strings.TrimPrefix(key, v1FindingsPrefix)).Findings)
	}
	return nil
}

// decodeV1Plan reads the 1.x "plan" value: a planner.Plan object, or (as
// some 1.x writers stored it) the bare item list.
func decodeV1Plan(value string) ([]planner.SubWorkItem, error) {
	if strings.HasPrefix(strings.TrimSpace(value), "[") {
		var items []planner.SubWorkItem
		if err := json.Unmarshal([]byte(value), &items); err != nil {
			return nil, err
		}
		return nilIfNone(items), nil
	}
	var p planner.Plan
	if err := json.Unmarshal([]byte(value), &p); err != nil {
		return nil, err
	}
	return nilIfNone(p.SubWorkItems), nil
}

func nilIfNone[T any](xs []T) []T {
	if len(xs) == 0 {
		return nil
	}
	return xs
}
