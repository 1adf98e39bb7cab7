package scenario

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubJudge returns a fixed verdict and records the criteria it was asked.
type stubJudge struct {
	passed    bool
	score     float64
	reasoning string
	err       error
	asked     []string
}

func (j *stubJudge) Judge(_ context.Context, criteria string, _ Observation) (bool, float64, string, error) {
	j.asked = append(j.asked, criteria)
	return j.passed, j.score, j.reasoning, j.err
}

func crit(check string, kv ...any) Criterion {
	c := Criterion{Check: check, Params: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Params[kv[i].(string)] = kv[i+1]
	}
	return c
}

func withWhen(c Criterion, when map[string]any) Criterion {
	c.When = when
	return c
}

func TestEvaluate_CheckTypes(t *testing.T) {
	base := Observation{
		ExitCode: 0,
		Output:   "=== RUN TestScenarioRoundTrip\n--- PASS: TestScenarioRoundTrip\nPASS\nok  \ttelemetry\t0.01s\n",
		Tests:    []TestResult{{Name: "TestScenarioRoundTrip", Passed: true}, {Name: "TestFlaky", Passed: false}},
		Files:    map[string]string{"report.json": `{"budget":{"used_pct":72,"limits":[10,20]},"frames":[{"id":"a"},{"id":"b"}]}`, "notes.txt": "version: 1.4.2\n"},
		Duration: 1500 * time.Millisecond,
		Fields:   map[string]any{"status": "published", "frames_sent": 12, "url": "https://example.test/post/42", "empty": "", "nested": map[string]any{"count": int64(3)}},
	}
	jsonOut := base
	jsonOut.Output = `{"status":"confirmed","score":0.87,"items":[{"name":"A","qty":2},{"name":"B","qty":5}],"tags":["x","y"]}`

	tests := []struct {
		name       string
		c          Criterion
		obs        Observation
		judge      Judge
		wantPassed bool
		wantReason string
	}{
		{"exit_code equal", crit("exit_code", "equals", int64(0)), base, nil, true, "exit code 0"},
		{"exit_code differs", crit("exit_code", "equals", 0), Observation{ExitCode: 1}, nil, false, "exit code 1, want 0"},

		{"content_includes all present, case-insensitive", crit("content_includes", "patterns", []any{"PASS", "Ok"}), base, nil, true, "includes every pattern"},
		{"content_includes missing one", crit("content_includes", "patterns", []string{"ok", "FAIL", "panic"}), base, nil, false, `output is missing "FAIL", "panic"`},
		{"content_includes case-sensitive", crit("content_includes", "patterns", []any{"pass"}, "case_sensitive", true), base, nil, false, `missing "pass"`},

		{"content_matches hit", crit("content_matches", "pattern", `(?m)^ok\s+telemetry`), base, nil, true, "matches"},
		{"content_matches miss", crit("content_matches", "pattern", "(?i)panic|DATA RACE"), base, nil, false, "does not match"},

		{"json_schema conforms", crit("json_schema", "schema", map[string]any{"type": "object", "required": []any{"status"}, "properties": map[string]any{"status": map[string]any{"enum": []any{"pending", "confirmed"}}}}), jsonOut, nil, true, "conforms"},
		{"json_schema violation names field", crit("json_schema", "schema", map[string]any{"type": "object", "properties": map[string]any{"status": map[string]any{"enum": []any{"pending"}}}}), jsonOut, nil, false, "at /status"},
		{"json_schema missing required", crit("json_schema", "schema", map[string]any{"required": []any{"order_id"}}), jsonOut, nil, false, "order_id"},
		{"json_schema not JSON", crit("json_schema", "schema", map[string]any{"type": "object"}), base, nil, false, "output is not valid JSON"},
		{"json_schema on file", crit("json_schema", "file", "report.json", "schema", map[string]any{"required": []any{"budget"}}), base, nil, true, "file report.json conforms"},

		{"json_path expected", crit("json_path", "expression", "$.status", "expected", "confirmed"), jsonOut, nil, true, `"confirmed"`},
		{"json_path expected mismatch", crit("json_path", "expression", "status", "expected", "pending"), jsonOut, nil, false, `is "confirmed", want "pending"`},
		{"json_path min max ok", crit("json_path", "expression", "$.score", "min", 0.8, "max", 1), jsonOut, nil, true, "0.87"},
		{"json_path below min", crit("json_path", "expression", "$.items[0].qty", "min", 3), jsonOut, nil, false, "below minimum 3"},
		{"json_path above max", crit("json_path", "expression", "$.items[-1].qty", "max", int64(4)), jsonOut, nil, false, "above maximum 4"},
		{"json_path projection contains", crit("json_path", "expression", "$.items[*].name", "contains", []any{"B"}), jsonOut, nil, true, `["A","B"]`},
		{"json_path projection lacks", crit("json_path", "expression", "$.items[*].name", "contains", []any{"C"}), jsonOut, nil, false, `does not contain "C"`},
		{"json_path integer equality across types", crit("json_path", "expression", "$.items[1]['qty']", "expected", 5), jsonOut, nil, true, "5"},
		{"json_path missing member", crit("json_path", "expression", "$.nope", "expected", 1), jsonOut, nil, false, `member "nope" not found`},
		{"json_path on file", crit("json_path", "file", "report.json", "expression", "$.budget.used_pct", "max", 80), base, nil, true, "72"},
		{"json_path file absent", crit("json_path", "file", "absent.json", "expression", "$.a", "expected", 1), base, nil, false, "file absent.json was not produced"},

		{"file_exists present", crit("file_exists", "path", "notes.txt"), base, nil, true, "exists"},
		{"file_exists absent", crit("file_exists", "path", "missing.txt"), base, nil, false, "missing.txt was not produced"},
		{"file_matches hit", crit("file_matches", "path", "notes.txt", "pattern", `version: \d+\.\d+\.\d+`), base, nil, true, "matches"},
		{"file_matches miss", crit("file_matches", "path", "notes.txt", "pattern", `version: 2`), base, nil, false, "does not match"},
		{"file_matches absent", crit("file_matches", "path", "x.txt", "pattern", `.`), base, nil, false, "x.txt was not produced"},

		{"duration within", crit("duration", "max_ms", 2000), base, nil, true, "took 1.5s"},
		{"duration over", crit("duration", "max_ms", int64(1000)), base, nil, false, "over the 1s limit"},

		{"output equals", crit("output.status", "equals", "published"), base, nil, true, `equals "published"`},
		{"output equals number across types", crit("output.frames_sent", "equals", int64(12)), base, nil, true, "equals 12"},
		{"output equals mismatch", crit("output.status", "equals", "draft"), base, nil, false, `is "published", want "draft"`},
		{"output matches", crit("output.url", "matches", `^https://example\.test/post/\d+$`), base, nil, true, "matches"},
		{"output matches miss", crit("output.url", "matches", `^http://`), base, nil, false, "does not match"},
		{"output greater_than", crit("output.frames_sent", "greater_than", 0), base, nil, true, "12 > 0"},
		{"output greater_than fails", crit("output.frames_sent", "greater_than", 12), base, nil, false, "want > 12"},
		{"output greater_than not a number", crit("output.status", "greater_than", 1), base, nil, false, "not a number"},
		{"output not_empty", crit("output.status", "not_empty", true), base, nil, true, "as expected"},
		{"output not_empty fails", crit("output.empty", "not_empty", true), base, nil, false, "is empty"},
		{"output nested field", crit("output.nested.count", "equals", 3), base, nil, true, "equals 3"},
		{"output absent field", crit("output.missing", "not_empty", true), base, nil, false, "output field missing is absent"},
		{"output long form with field", crit("output", "field", "status", "equals", "published"), base, nil, true, "equals"},

		{"llm_judge passes on verdict", crit("llm_judge", "criteria", "explains drops"), base, &stubJudge{passed: true, score: 0.9, reasoning: "clear"}, true, "judge score 0.90: clear"},
		{"llm_judge min_score overrides verdict", crit("llm_judge", "criteria", "explains drops", "min_score", 0.8), base, &stubJudge{passed: true, score: 0.5}, false, "judge score 0.50 (min 0.80)"},
		{"llm_judge min_score met", crit("llm_judge", "criteria", "x", "min_score", 0.5), base, &stubJudge{passed: false, score: 0.5}, true, "0.50"},
		{"llm_judge without judge fails clearly", crit("llm_judge", "criteria", "x"), base, nil, false, "no LLM judge is configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.c.Validate())
			res, err := Evaluate(context.Background(), tt.c, tt.obs, tt.judge)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPassed, res.Passed, res.Reason)
			assert.False(t, res.Skipped)
			assert.Contains(t, res.Reason, tt.wantReason)
			assert.Equal(t, tt.c.Check, res.Check)
		})
	}
}

func TestEvaluate_WhenSkipSemantics(t *testing.T) {
	obs := Observation{
		ExitCode: 1,
		Output:   "FAIL: budget exceeded",
		Tests:    []TestResult{{Name: "TestX", Passed: true}, {Name: "TestY", Passed: false}},
		Files:    map[string]string{"out.log": "x"},
	}
	failing := crit("exit_code", "equals", 0) // fails whenever it runs on obs
	tests := []struct {
		name        string
		when        map[string]any
		wantSkipped bool
		wantReason  string
	}{
		{"test_ran holds", map[string]any{"test_ran": "TestX"}, false, "exit code 1, want 0"},
		{"test_ran does not hold", map[string]any{"test_ran": "TestZ"}, true, `skipped: test "TestZ" did not run`},
		{"test_passed does not hold", map[string]any{"test_passed": "TestY"}, true, `test "TestY" did not pass`},
		{"test_failed holds", map[string]any{"test_failed": "TestY"}, false, "want 0"},
		{"test_failed does not hold", map[string]any{"test_failed": "TestX"}, true, `test "TestX" did not fail`},
		{"exit_code holds", map[string]any{"exit_code": int64(1)}, false, "want 0"},
		{"exit_code does not hold", map[string]any{"exit_code": 0}, true, "exit code 1 is not 0"},
		{"output_contains holds", map[string]any{"output_contains": "budget"}, false, "want 0"},
		{"output_contains does not hold", map[string]any{"output_contains": "panic"}, true, `output does not contain "panic"`},
		{"output_matches does not hold", map[string]any{"output_matches": "^ok"}, true, `output does not match "^ok"`},
		{"file_exists does not hold", map[string]any{"file_exists": "missing"}, true, "file missing was not produced"},
		{"all conditions AND-ed: one fails", map[string]any{"test_ran": "TestX", "exit_code": 0}, true, "exit code 1 is not 0"},
		{"all conditions AND-ed: all hold", map[string]any{"test_ran": "TestX", "file_exists": "out.log"}, false, "want 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := withWhen(failing, tt.when)
			c.Message = "must exit cleanly"
			require.NoError(t, c.Validate())
			res, err := Evaluate(context.Background(), c, obs, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.wantSkipped, res.Skipped)
			assert.Equal(t, tt.wantSkipped, res.Passed, "a skipped criterion is recorded as passed; a run one fails here")
			assert.Contains(t, res.Reason, tt.wantReason)
			assert.Equal(t, "must exit cleanly", res.Message)
		})
	}
}

func TestEvaluate_WhenSkipAvoidsJudgeCall(t *testing.T) {
	j := &stubJudge{passed: false}
	c := withWhen(crit("llm_judge", "criteria", "explains failure"), map[string]any{"test_failed": "TestX"})
	res, err := Evaluate(context.Background(), c, Observation{Tests: []TestResult{{Name: "TestX", Passed: true}}}, j)
	require.NoError(t, err)
	assert.True(t, res.Skipped)
	assert.True(t, res.Passed)
	assert.Empty(t, j.asked, "a skipped llm_judge must not call the judge")
}

func TestEvaluate_JudgeErrorIsReturned(t *testing.T) {
	boom := errors.New("rate limited")
	_, err := Evaluate(context.Background(), crit("llm_judge", "criteria", "x"), Observation{}, &stubJudge{err: boom})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), "criterion llm_judge: llm judge: rate limited")
}

func TestCriterionValidate_Errors(t *testing.T) {
	tests := []struct {
		name string
		c    Criterion
		want string
	}{
		{"no check", Criterion{}, "check: missing required check type"},
		{"unknown check", crit("tools_called"), `check: unknown check type "tools_called"`},
		{"exit_code missing equals", crit("exit_code"), "equals: missing required parameter"},
		{"exit_code not integer", crit("exit_code", "equals", 1.5), "equals: must be an integer"},
		{"content_includes typo", crit("content_includes", "pattern", "ok"), "pattern: unknown key (allowed: patterns, case_sensitive)"},
		{"content_includes empty", crit("content_includes", "patterns", []any{}), "patterns: must not be empty"},
		{"content_includes non-string", crit("content_includes", "patterns", []any{"a", 3}), "patterns[1]: must be a string, got a number"},
		{"content_matches bad regex", crit("content_matches", "pattern", "a(b"), `pattern: invalid regular expression "a(b"`},
		{"json_schema missing", crit("json_schema"), "schema: missing required parameter"},
		{"json_schema not table", crit("json_schema", "schema", "object"), "schema: must be a table"},
		{"json_schema external ref", crit("json_schema", "schema", map[string]any{"$ref": "file:///etc/passwd"}), "schema: invalid JSON Schema"},
		{"json_path no constraint", crit("json_path", "expression", "$.a"), "needs at least one of expected, min, max, contains"},
		{"json_path bad min", crit("json_path", "expression", "$.a", "min", "low"), "min: must be a number, got a string"},
		{"json_path unclosed", crit("json_path", "expression", "$.a[0", "expected", 1), "unclosed '['"},
		{"file_exists missing path", crit("file_exists"), "path: missing required parameter"},
		{"file_matches missing pattern", crit("file_matches", "path", "x"), "pattern: missing required parameter"},
		{"duration non-positive", crit("duration", "max_ms", 0), "max_ms: must be positive"},
		{"llm_judge missing criteria", crit("llm_judge", "min_score", 0.5), "criteria: missing required parameter"},
		{"llm_judge min_score range", crit("llm_judge", "criteria", "x", "min_score", 7), "min_score: must be between 0 and 1"},
		{"output no field", crit("output."), "names no field"},
		{"output no operator", crit("output.x"), "needs exactly one of"},
		{"output bad regex", crit("output.x", "matches", "["), "matches: invalid regular expression"},
		{"output unknown op", crit("output.x", "less_than", 3), "less_than: unknown key"},
		{"when unknown", withWhen(crit("exit_code", "equals", 0), map[string]any{"tool_called": "x"}), "when.tool_called: unknown when condition"},
		{"when bad type", withWhen(crit("exit_code", "equals", 0), map[string]any{"test_ran": 3}), "when.test_ran: must be a string"},
		{"when bad regex", withWhen(crit("exit_code", "equals", 0), map[string]any{"output_matches": "("}), "when.output_matches: invalid regular expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			_, evalErr := Evaluate(context.Background(), tt.c, Observation{}, nil)
			require.Error(t, evalErr, "Evaluate refuses invalid criteria too")
		})
	}
}
