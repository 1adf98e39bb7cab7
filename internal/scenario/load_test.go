package scenario

import (
	"context"
	"errors"
	"os"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadRepo(t *testing.T) []Scenario {
	t.Helper()
	scs, err := LoadScenarios(context.Background(), os.DirFS("testdata/repo"), ".cogworks/scenarios")
	require.NoError(t, err)
	return scs
}

func TestLoadScenarios_SpecExampleAndYAML(t *testing.T) {
	scs := loadRepo(t)
	require.Len(t, scs, 3, "README.md and the overlay .go file are not scenarios")

	byID := map[string]Scenario{}
	for _, sc := range scs {
		byID[sc.ID] = sc
	}

	tel := byID["SCN-TEL-001"]
	assert.Equal(t, ".cogworks/scenarios/telemetry_roundtrip.toml", tel.File)
	assert.Equal(t, []string{"SWD-IF-CAN-01"}, tel.Covers)
	assert.Equal(t, 3, tel.Trajectories)
	assert.Empty(t, tel.Twin)
	assert.Equal(t, []string{"./telemetry"}, tel.Run.Packages)
	assert.Equal(t, "TestScenarioRoundTrip", tel.Run.Filter)
	require.Len(t, tel.Run.Overlay, 1)
	assert.Equal(t, ".cogworks/scenarios/telemetry_roundtrip_test.go", tel.Run.Overlay[0].From)
	assert.Equal(t, "telemetry/zz_scenario_test.go", tel.Run.Overlay[0].To)
	assert.Contains(t, tel.Run.Overlay[0].Content, "func TestScenarioRoundTrip")
	assert.Equal(t, []Criterion{
		{Check: "exit_code", Params: map[string]any{"equals": float64(0)}},
		{Check: "content_includes", Params: map[string]any{"patterns": []any{"ok"}}},
	}, normaliseCriteria(tel.Acceptance))
	assert.Equal(t, []Criterion{
		{Check: "content_matches", Params: map[string]any{"pattern": "(?i)panic|DATA RACE"}},
	}, normaliseCriteria(tel.Failure))

	bus := byID["SCN-BUS-002"]
	assert.Equal(t, "canbus", bus.Twin)
	assert.Equal(t, 0, bus.Trajectories, "unset trajectories means the configured default")
	require.Len(t, bus.Acceptance, 3)
	assert.Equal(t, "frames must flow", bus.Acceptance[0].Message)
	assert.Equal(t, "output.frames_sent", bus.Acceptance[0].Check)
	assert.Equal(t, map[string]any{"test_failed": "TestScenarioBudget"}, bus.Acceptance[2].When)
	assert.Equal(t, "report.json", bus.Acceptance[1].Params["file"])

	assert.Equal(t, []string{"SWD-IF-LOG-03"}, byID["SCN-NOTES-003"].Covers)
}

func normaliseCriteria(cs []Criterion) []Criterion {
	out := make([]Criterion, len(cs))
	for i, c := range cs {
		c.Params = normalise(c.Params).(map[string]any)
		out[i] = c
	}
	return out
}

func TestLoadScenarios_MissingDirectoryIsEmpty(t *testing.T) {
	scs, err := LoadScenarios(context.Background(), fstest.MapFS{}, ".cogworks/scenarios")
	require.NoError(t, err)
	assert.Empty(t, scs)
}

func TestLoadScenarios_BadFiles(t *testing.T) {
	tests := []struct {
		dir     string
		want    string
		loadErr LoadError
	}{
		{dir: "unknown_check", want: `scenario.toml: scenario SCN-BAD-1: acceptance[0].check: unknown check type "content_include"`},
		{dir: "missing_param", want: "scenario.toml: scenario SCN-BAD-2: failure[0].pattern: missing required parameter"},
		{dir: "bad_regex", want: `scenario.toml: scenario SCN-BAD-3: acceptance[1].pattern: invalid regular expression "(unclosed"`},
		{dir: "duplicate_ids", want: "b.yaml: scenario SCN-DUP: id: duplicate scenario id, already defined in a.toml"},
		{dir: "unknown_key", want: "scenario.toml: scenario SCN-BAD-5: trajectorys: unknown key"},
		{dir: "missing_covers", want: "scenario.toml: scenario SCN-BAD-6: covers: missing required parameter"},
		{dir: "toml_syntax", want: "scenario.toml: invalid TOML: toml: line 1"},
		{dir: "yaml_type", want: "scenario.yaml: scenario SCN-BAD-8: trajectories: must be a number, got a string"},
		{dir: "bad_when", want: "scenario.yml: scenario SCN-BAD-9: acceptance[0].when.tool_called: unknown when condition"},
		{dir: "overlay_escape", want: `scenario.toml: scenario SCN-BAD-10: run.overlay[0].from: "../secret_test.go" must be a clean repository-relative path`},
		{dir: "overlay_missing", want: "scenario.toml: scenario SCN-BAD-11: run.overlay[0].from: read overlay source"},
		{dir: "bad_schema", want: "scenario.toml: scenario SCN-BAD-12: acceptance[0].schema: invalid JSON Schema"},
		{dir: "bad_jsonpath", want: "scenario.yaml: scenario SCN-BAD-13: acceptance[0].expression: JSONPath \"$.items[first]\": unsupported selector [first]"},
		{dir: "missing_id", want: "scenario.toml: id: missing required parameter"},
		{dir: "output_two_ops", want: "scenario.toml: scenario SCN-BAD-15: acceptance[0].check: output.status needs exactly one of equals, matches, greater_than, not_empty (got 2)"},
		{dir: "no_acceptance", want: "scenario.toml: scenario SCN-BAD-16: acceptance: a scenario needs at least one acceptance criterion"},
		{dir: "negative_trajectories", want: "scenario.toml: scenario SCN-BAD-17: trajectories: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			scs, err := LoadScenarios(context.Background(), os.DirFS("testdata/bad/"+tt.dir), ".")
			require.Error(t, err)
			assert.Nil(t, scs)
			assert.Contains(t, err.Error(), tt.want)
			var le *LoadError
			require.True(t, errors.As(err, &le), "errors are *LoadError")
			assert.NotEmpty(t, le.File)
		})
	}
}

func TestLoadScenarios_ReportsEveryBadFile(t *testing.T) {
	fsys := fstest.MapFS{
		"s/a.toml": {Data: []byte("id = \"A\"\ncovers = [\"I\"]\n[[acceptance]]\ncheck = \"nope\"\n")},
		"s/b.toml": {Data: []byte("id = \"B\"\ncovers = [\"I\"]\n[[acceptance]]\ncheck = \"duration\"\n")},
	}
	_, err := LoadScenarios(context.Background(), fsys, "s")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "s/a.toml: scenario A: acceptance[0].check: unknown check type")
	assert.Contains(t, err.Error(), "s/b.toml: scenario B: acceptance[0].max_ms: missing required parameter")
}

func TestLoadTwins(t *testing.T) {
	twins, err := LoadTwins(context.Background(), os.DirFS("testdata/repo"), ".cogworks/twins")
	require.NoError(t, err)
	require.Len(t, twins, 2)

	canbus := twins["canbus"]
	assert.Equal(t, "canbus", canbus.Name, "name defaults to the file stem")
	assert.Equal(t, []string{"go", "run", "./twins/canbus", "--port", "7000"}, canbus.Start)
	assert.Equal(t, []string{"go", "run", "./twins/canbus", "reset"}, canbus.Reset)
	assert.Empty(t, canbus.Stop)
	assert.Equal(t, Readiness{TCP: "127.0.0.1:7000", Timeout: 10 * time.Second, Interval: DefaultReadyInterval}, canbus.Ready)

	probe := twins["probe-twin"]
	assert.Equal(t, []string{"./twin", "probe"}, probe.Ready.Command)
	assert.Equal(t, 50*time.Millisecond, probe.Ready.Interval)
	assert.Equal(t, DefaultReadyTimeout, probe.Ready.Timeout)
	assert.Equal(t, []string{"./twin", "stop"}, probe.Stop)
}

func TestLoadTwins_BadFiles(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"no start", `name = "x"`, "t/x.toml: twin x: start: missing required parameter"},
		{"start not argv", `start = "./twin --port 1"`, "t/x.toml: twin x: start: must be a list of strings, got a string"},
		{"both probes", "start = [\"a\"]\n[ready]\ntcp = \"h:1\"\ncommand = [\"p\"]\n", "t/x.toml: twin x: ready.command: give either command or tcp, not both"},
		{"bad timeout", "start = [\"a\"]\n[ready]\ntimeout = \"soon\"\n", `t/x.toml: twin x: ready.timeout: must be a positive duration like "30s", got "soon"`},
		{"unknown key", "start = [\"a\"]\nshell = \"bash\"\n", "t/x.toml: twin x: shell: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadTwins(context.Background(), fstest.MapFS{"t/x.toml": {Data: []byte(tt.data)}}, "t")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	t.Run("duplicate names", func(t *testing.T) {
		fsys := fstest.MapFS{
			"t/a.toml": {Data: []byte("name = \"bus\"\nstart = [\"a\"]\n")},
			"t/b.toml": {Data: []byte("name = \"bus\"\nstart = [\"b\"]\n")},
		}
		_, err := LoadTwins(context.Background(), fsys, "t")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "t/b.toml: twin bus: name: duplicate twin name, already defined in t/a.toml")
	})
}
