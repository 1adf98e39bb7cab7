package pipeline

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

// snapshotV3 holds the places a 1.x to 3.x snapshot kept a sub-work-item's
// state in, before 4.0.0 made it one record (SWI).
type snapshotV3 struct {
	// Attempts mixes stage names and "swi/<id>/<stage>" keys.
	Attempts          map[string]int `json:"attempts"`
	RemediationCycles map[string]int `json:"remediation_cycles"`
	Artifacts         struct {
		SubWorkItems []swiRecordV3 `json:"sub_work_items"`
	} `json:"artifacts"`
	Plan   []planner.SubWorkItem  `json:"plan"`
	SWIs   map[string]*swiStateV3 `json:"swis"`
	Ledger struct {
		PerSWI map[string]Usage `json:"per_swi"`
	} `json:"ledger"`
}

// swiRecordV3 is a 3.x artifacts.sub_work_items entry.
type swiRecordV3 struct {
	ID        string   `json:"id"`
	Issue     int      `json:"issue"`
	Order     int      `json:"order"`
	DependsOn []string `json:"depends_on"`
	Status    string   `json:"status"`
	Branch    string   `json:"branch"`
	PR        int      `json:"pr"`
}

// swiStateV3 is a 3.x swis entry (and what 1.x kept under "feedback/",
// "files/" and "findings/" keys).
type swiStateV3 struct {
	Feedback string           `json:"feedback"`
	Files    []string         `json:"files"`
	Findings []review.Finding `json:"findings"`
}

// swi returns the swis entry of id, added when there is none.
func (old *snapshotV3) swi(id string) *swiStateV3 {
	if old.SWIs == nil {
		old.SWIs = map[string]*swiStateV3{}
	}
	if old.SWIs[id] == nil {
		old.SWIs[id] = &swiStateV3{}
	}
	return old.SWIs[id]
}

// swiAttemptPrefix starts a 3.x per-SWI attempts key, "swi/<id>/<stage>".
const swiAttemptPrefix = "swi/"

// decodeV3 reads the 3.x places of raw, a 1.x to 3.x snapshot.
func decodeV3(raw string) (snapshotV3, error) {
	var old snapshotV3
	if err := json.Unmarshal([]byte(raw), &old); err != nil {
		return snapshotV3{}, describeJSONError(raw, err)
	}
	return old, nil
}

// migrateV3 folds the 3.x places into one record per sub-work-item: the
// artifacts' records in their order, each with its plan entry, then plan
// entries that had no record. State kept for an id that is neither (no
// build wrote such a snapshot, but dropping it would lose work) becomes a
// record with no status, which no stage picks up, as no stage read it
// before. s.Attempts keeps only the stage-level counts.
func migrateV3(s *Snapshot, old snapshotV3) {
	s.SubWorkItems = nil
	s.SchemaVersion = SchemaVersion
	record := func(id string) *SWI {
		if w := s.SubWorkItem(id); w != nil {
			return w
		}
		s.SubWorkItems = append(s.SubWorkItems, SWI{SubWorkItem: planner.SubWorkItem{ID: id}})
		return &s.SubWorkItems[len(s.SubWorkItems)-1]
	}
	planOf := func(id string) (planner.SubWorkItem, bool) {
		i := slices.IndexFunc(old.Plan, func(p planner.SubWorkItem) bool { return p.ID == id })
		if i < 0 {
			return planner.SubWorkItem{}, false
		}
		return old.Plan[i], true
	}
	for _, r := range old.Artifacts.SubWorkItems {
		item, ok := planOf(r.ID)
		if !ok {
			item = planner.SubWorkItem{ID: r.ID, DependsOn: nilIfNone(r.DependsOn)}
		}
		w := record(r.ID)
		w.SubWorkItem = item
		w.Issue, w.Order, w.Status, w.Branch, w.PR = r.Issue, r.Order, SWIStatus(r.Status), r.Branch, r.PR
	}
	for _, p := range old.Plan {
		if s.SubWorkItem(p.ID) == nil {
			record(p.ID).SubWorkItem = p
		}
	}
	for _, id := range sortedKeys(old.SWIs) {
		st := old.SWIs[id]
		if st == nil || st.Feedback == "" && len(st.Files) == 0 && len(st.Findings) == 0 {
			continue
		}
		w := record(id)
		w.Feedback, w.Committed, w.Findings = st.Feedback, nilIfNone(st.Files), nilIfNone(st.Findings)
	}
	for _, id := range sortedKeys(old.RemediationCycles) {
		record(id).RemediationCycles = old.RemediationCycles[id]
	}
	for _, id := range sortedKeys(old.Ledger.PerSWI) {
		record(id).Usage = old.Ledger.PerSWI[id]
	}
	s.Attempts = nil
	for _, key := range sortedKeys(old.Attempts) {
		n := old.Attempts[key]
		rest, perSWI := strings.CutPrefix(key, swiAttemptPrefix)
		i := strings.LastIndex(rest, "/")
		if !perSWI || i < 0 {
			if s.Attempts == nil {
				s.Attempts = map[Stage]int{}
			}
			s.Attempts[Stage(key)] = n
			continue
		}
		w := record(rest[:i])
		if w.Attempts == nil {
			w.Attempts = map[Stage]int{}
		}
		w.Attempts[Stage(rest[i+1:])] = n
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
