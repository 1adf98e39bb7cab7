package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The machine block delimiters. The JSON between them is compact and never
// contains "--", '<' or '>' (see RenderSnapshot), so the first "-->" after
// the opening is always the end of the block.
const (
	snapshotOpen  = "<!-- cogworks:state "
	snapshotClose = " -->"
)

// NewSnapshot returns the snapshot of a work item that has not started:
// current schema version, no stage, empty artifacts and ledger.
func NewSnapshot(repo string, workItem int) Snapshot {
	return Snapshot{SchemaVersion: SchemaVersion, Repo: repo, WorkItem: workItem}
}

// VersionError reports a snapshot written with a schema MAJOR version this
// build cannot read. Callers branch on it with errors.As: the right reaction
// is to stop and tell a human to upgrade, not to rebuild state.
type VersionError struct {
	Found     string // the snapshot's schema_version
	Supported string // SchemaVersion of this build
}

// Error implements error.
func (e *VersionError) Error() string {
	supported := majorOf(e.Supported) + ".x"
	if want, _ := parseMajor(e.Supported); want > oldestReadableMajor {
		supported = fmt.Sprintf("%d.x to %s", oldestReadableMajor, supported)
	}
	found, _ := parseMajor(e.Found)
	if found < oldestReadableMajor {
		return fmt.Sprintf("snapshot schema %s is older than this CogWorks build supports (%s) and cannot be migrated", e.Found, supported)
	}
	return fmt.Sprintf("snapshot schema %s is newer than this CogWorks build supports (%s); upgrade CogWorks", e.Found, supported)
}

// RenderSnapshot returns the hidden machine block for s:
// "<!-- cogworks:state {json} -->". The JSON is compact; '<', '>' and '&'
// are \u-escaped by encoding/json and every "--" is written as
// "\u002d\u002d", so no string value can end the HTML comment early.
// ParseSnapshot(RenderSnapshot(s)) == s.
func RenderSnapshot(s Snapshot) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(s); err != nil {
		return "", fmt.Errorf("render snapshot of %s#%d: %w", s.Repo, s.WorkItem, err)
	}
	// In compact JSON a '-' outside a string only starts a negative number,
	// so "--" can only occur inside strings, where \u002d is an equivalent
	// spelling of '-'.
	body := strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\n"), "--", `\u002d\u002d`)
	return snapshotOpen + body + snapshotClose, nil
}

// ParseSnapshot finds the machine block anywhere in a comment body and
// decodes it. found is false (and err nil) when body holds no block.
// Malformed JSON, a missing or invalid schema_version and an unsupported
// MAJOR version (a *VersionError) are errors. Fields added by a newer MINOR
// version are ignored. A 1.x to 3.x snapshot is migrated to the current
// form (see decodeV1 and migrateV3) and comes back with the current
// SchemaVersion, so the next write is in the form this build writes.
func ParseSnapshot(body string) (s Snapshot, found bool, err error) {
	start := strings.Index(body, snapshotOpen)
	if start < 0 {
		return Snapshot{}, false, nil
	}
	rest := body[start+len(snapshotOpen):]
	end := strings.Index(rest, "-->")
	if end < 0 {
		return Snapshot{}, true, errors.New("parse snapshot: cogworks:state block is not terminated by -->")
	}
	raw := strings.TrimSpace(rest[:end])

	var head struct {
		SchemaVersion *string `json:"schema_version"`
	}
	if err := json.Unmarshal([]byte(raw), &head); err != nil {
		return Snapshot{}, true, fmt.Errorf("parse snapshot: malformed JSON: %w", describeJSONError(raw, err))
	}
	if head.SchemaVersion == nil {
		return Snapshot{}, true, errors.New("parse snapshot: schema_version is missing")
	}
	major, err := checkSchemaVersion(*head.SchemaVersion)
	if err != nil {
		return Snapshot{}, true, fmt.Errorf("parse snapshot: %w", err)
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return Snapshot{}, true, fmt.Errorf("parse snapshot: %w", describeJSONError(raw, err))
	}
	if major == 4 {
		return s, true, nil
	}
	// Before 4.0.0 a sub-work-item's state was spread over five places;
	// 3.0.0 otherwise only added fields, which a 2.x snapshot lacks.
	old, err := decodeV3(raw)
	if err == nil && major == 1 {
		err = decodeV1(raw, &s, &old)
	}
	if err != nil {
		return Snapshot{}, true, fmt.Errorf("parse snapshot (schema %s): %w", *head.SchemaVersion, err)
	}
	migrateV3(&s, old)
	return s, true, nil
}

// SnapshotBlock returns the machine block of body exactly as written,
// "<!-- cogworks:state … -->": the text a state MAC signs. ok is false when
// body holds no terminated block.
func SnapshotBlock(body string) (block string, ok bool) {
	start := strings.Index(body, snapshotOpen)
	if start < 0 {
		return "", false
	}
	end := strings.Index(body[start+len(snapshotOpen):], "-->")
	if end < 0 {
		return "", false
	}
	return body[start : start+len(snapshotOpen)+end+len("-->")], true
}

// describeJSONError adds the offending field or byte offset to a decoding
// error where encoding/json does not already say it.
func describeJSONError(raw string, err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Errorf("at byte %d of %d: %w", syntax.Offset, len(raw), err)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Errorf("field %q: %s value cannot be stored as %s", typ.Field, typ.Value, typ.Type)
	}
	return err
}

// checkSchemaVersion accepts any MAJOR.MINOR.PATCH whose MAJOR is between
// oldestReadableMajor and SchemaVersion's, and returns that MAJOR.
func checkSchemaVersion(v string) (int, error) {
	if !validSemver(v) {
		return 0, fmt.Errorf("schema_version %q is not a MAJOR.MINOR.PATCH version", v)
	}
	found, _ := parseMajor(v)
	supported, _ := parseMajor(SchemaVersion)
	if found < oldestReadableMajor || found > supported {
		return 0, &VersionError{Found: v, Supported: SchemaVersion}
	}
	return found, nil
}

func validSemver(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if _, ok := canonicalInt(p); !ok || strings.HasPrefix(p, "-") {
			return false
		}
	}
	return true
}

func majorOf(v string) string {
	major, _, _ := strings.Cut(v, ".")
	return major
}

func parseMajor(v string) (int, error) {
	return strconv.Atoi(majorOf(v))
}
