package xval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
)

const goodRoot = "testdata/good"

var goodDir = filepath.Join(goodRoot, ".cogworks", "interfaces")

func goodRegistry(t *testing.T) *Registry {
	t.Helper()
	reg, err := LoadRegistry(goodDir)
	require.NoError(t, err)
	return reg
}

func TestLoadRegistryGood(t *testing.T) {
	reg := goodRegistry(t)
	assert.Equal(t, []string{"SWD-IF-CAN-01", "ELEC-IF-PWR-01"}, reg.IDs())

	can, ok := reg.Interface("SWD-IF-CAN-01")
	require.True(t, ok)
	assert.Equal(t, "1.2.0", can.Version)
	assert.Equal(t, "bus_protocol", can.Type)
	assert.Equal(t, "firmware", can.Owner)
	assert.Equal(t, []string{"software", "electrical"}, can.Participants)
	assert.Equal(t, filepath.Join(goodDir, "can.toml"), can.File)

	p := can.Parameters
	assert.Equal(t, Parameter{Name: "baud_rate", Kind: KindExact, Value: 500000.0, Unit: "bps"}, p["baud_rate"])
	assert.Equal(t, Parameter{Name: "max_bus_load", Kind: KindTolerance, Nominal: 0.3, Min: 0, Max: 0.5, Unit: "ratio"}, p["max_bus_load"])
	assert.Equal(t, Parameter{Name: "connector", Kind: KindEnum, Value: "JST-PH-4", Allowed: []string{"JST-PH-4", "JST-PH-6"}}, p["connector"])
	assert.Equal(t, Parameter{Name: "termination_required", Kind: KindBool, Value: true}, p["termination_required"])
	assert.Equal(t, Parameter{Name: "wiring", Kind: KindRef, Ref: "docs/can-wiring.md"}, p["wiring"])
	msgs := p["messages"]
	assert.Equal(t, KindStructured, msgs.Kind)
	require.Len(t, msgs.Items, 3)
	assert.Equal(t, Item{Name: "BrakePressureFL", Fields: map[string]any{"can_id": 288.0, "size_bytes": 4.0, "cycle_ms": 10.0}}, msgs.Items[0])

	_, ok = reg.Interface("NOPE")
	assert.False(t, ok)
}

func TestLoadRegistryMissingDirIsEmpty(t *testing.T) {
	reg, err := LoadRegistry(filepath.Join(t.TempDir(), "absent"))
	require.NoError(t, err)
	assert.Empty(t, reg.Interfaces)

	rep, err := ValidateDir(filepath.Join(t.TempDir(), ".cogworks", "interfaces"), t.TempDir(), nil)
	require.NoError(t, err)
	assert.Empty(t, rep.Findings)
}

func TestMalformedTOMLNamesFileAndLine(t *testing.T) {
	_, err := LoadRegistry("testdata/badtoml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join("testdata", "badtoml", "can.toml")+":9: invalid TOML")
}

// TestAssertXDOM001_RegistryValidatedOnRun checks that ValidateDir, which the
// step function calls before any stage, checks the schema, the references
// and conflicts.
func TestAssertXDOM001_RegistryValidatedOnRun(t *testing.T) {
	services := []ServiceInfo{{Domain: "firmware"}, {Domain: "software"}, {Domain: "electrical"}}
	t.Run("good registry passes", func(t *testing.T) {
		rep, err := ValidateDir(goodDir, goodRoot, services)
		require.NoError(t, err)
		assert.Empty(t, rep.Findings)
		assert.Len(t, rep.Registry.Interfaces, 2)
	})
	t.Run("unresolvable reference", func(t *testing.T) {
		root := t.TempDir()
		dir := copyDir(t, goodDir, filepath.Join(root, ".cogworks", "interfaces"))
		rep, err := ValidateDir(dir, root, services)
		require.Error(t, err)
		var fe *FindingsError
		require.ErrorAs(t, err, &fe)
		require.Len(t, fe.Findings, 1)
		f := fe.Findings[0]
		assert.Equal(t, "SWD-IF-CAN-01", f.InterfaceID)
		assert.Equal(t, "wiring", f.Parameter)
		assert.Equal(t, ".cogworks/interfaces/can.toml", f.Artifact)
		assert.Contains(t, f.Message, `unresolvable reference "docs/can-wiring.md"`)
		assert.Equal(t, rep.Blocking(), fe.Findings)
	})
	t.Run("conflicting constraints", func(t *testing.T) {
		_, err := ValidateDir("testdata/conflict", "", nil)
		var fe *FindingsError
		require.ErrorAs(t, err, &fe)
		require.Len(t, fe.Findings, 1)
		assert.Equal(t, "max_bus_load", fe.Findings[0].Parameter)
		assert.Contains(t, fe.Findings[0].Message, "IF-A (testdata/conflict/can_a.toml) and IF-B (testdata/conflict/can_b.toml) allow disjoint ranges [0, 0.5] and [0.6, 0.8]")
	})
}

func TestAssertXDOM002_InvalidDefinitionHalts(t *testing.T) {
	rep, err := ValidateDir("testdata/badschema", "testdata", nil)
	require.Error(t, err)
	assert.Empty(t, rep.Registry.Interfaces, "no invalid definition is loaded")
	want := []string{
		"badschema/can.toml: interface SWD-IF-CAN-01: parameters.baud_rate.nominall: unknown field",
		"badschema/can.toml: interface SWD-IF-CAN-01: parameters.baud_rate.value: required field is missing",
		"badschema/can.toml: interface SWD-IF-CAN-01: parameters.max_bus_load.max: expected number, got string",
		"badschema/can.toml: interface SWD-IF-CAN-01: parameters.messages.items[0].name: required field is missing",
		"badschema/can.toml: interface SWD-IF-CAN-01: parameters.mode.kind: value must be one of 'tolerance', 'exact', 'enum', 'bool', 'ref', 'structured'",
		`badschema/can.toml: interface SWD-IF-CAN-01: version: expected a semantic version MAJOR.MINOR.PATCH, got "1.2"`,
		"badschema/power.toml: interface (missing id): id: required field is missing",
	}
	assert.Equal(t, want, strings.Split(err.Error(), "\n"))
}

func TestSemanticErrors(t *testing.T) {
	head := "id = \"X-1\"\nversion = \"1.0.0\"\ntype = \"signal\"\ntitle = \"t\"\nowner = \"firmware\"\n"
	tests := []struct {
		name, body, want string
	}{
		{"nominal outside", "[parameters.v]\nkind = \"tolerance\"\nnominal = 6\nmin = 1\nmax = 5\n", "parameters.v.nominal: 6 is outside [1, 5]"},
		{"min above max", "[parameters.v]\nkind = \"tolerance\"\nnominal = 3\nmin = 5\nmax = 1\n", "parameters.v: min 5 is greater than max 1"},
		{"enum value not allowed", "[parameters.c]\nkind = \"enum\"\nvalue = \"A\"\nallowed = [\"B\"]\n", `parameters.c.value: "A" is not in allowed ["B"]`},
		{"duplicate item", "[parameters.m]\nkind = \"structured\"\n[[parameters.m.items]]\nname = \"A\"\n[[parameters.m.items]]\nname = \"A\"\n", `parameters.m.items[1].name: duplicate item name "A"`},
		{"owner as participant", "participants = [\"firmware\"]\n", `participants: owner domain "firmware" is also listed as a participant`},
		{"wrong bool type", "[parameters.b]\nkind = \"bool\"\nvalue = \"yes\"\n", "parameters.b.value: expected boolean, got string"},
		{"structured field not scalar", "[parameters.m]\nkind = \"structured\"\n[[parameters.m.items]]\nname = \"A\"\nsub = [1, 2]\n", "parameters.m.items[0].sub: expected boolean or number or string, got array"},
		{"unknown top-level field", "colour = \"red\"\n", "colour: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInterface("x.toml", []byte(head+tt.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "x.toml: interface X-1: "+tt.want)
		})
	}
}

func TestPublishedSchemaMatchesEmbedded(t *testing.T) {
	published := filepath.Join("..", "schemas", "interface-registry.schema.json")
	testkit.Golden(t, published, string(SchemaJSON()))
}

func copyDir(t *testing.T, from, to string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(to, 0o755))
	entries, err := os.ReadDir(from)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(to, e.Name()), data, 0o644))
	}
	return to
}
