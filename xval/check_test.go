package xval

import (
	"testing"
	"testing/fstest"

	"github.com/cogworks/cogworks/finding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func regOf(ifaces ...Interface) *Registry { return &Registry{Interfaces: ifaces} }

func TestAssertXDOM003_VersionMismatchBlocks(t *testing.T) {
	iface := Interface{ID: "SWD-IF-CAN-01", Version: "3.0.0", Type: "bus_protocol", Owner: "firmware", Participants: []string{"software"}, File: "can.toml"}
	tests := []struct {
		name      string
		supported map[string][]string
		domain    string
		blocking  bool
	}{
		{"service supports v2, registry v3", map[string][]string{"SWD-IF-CAN-01": {"2"}}, "software", true},
		{"several old versions", map[string][]string{"SWD-IF-CAN-01": {"1.0.0", "2.4.1"}}, "firmware", true},
		{"minor newer than registry", map[string][]string{"SWD-IF-CAN-01": {"3.1"}}, "software", true},
		{"major only", map[string][]string{"SWD-IF-CAN-01": {"3"}}, "software", false},
		{"v-prefixed", map[string][]string{"SWD-IF-CAN-01": {"v3"}}, "software", false},
		{"wildcard minor", map[string][]string{"SWD-IF-CAN-01": {"2", "3.x"}}, "software", false},
		{"exact version", map[string][]string{"SWD-IF-CAN-01": {"3.0.0"}}, "software", false},
		{"by interface type", map[string][]string{"bus_protocol": {"2"}}, "software", true},
		{"id entry wins over type", map[string][]string{"SWD-IF-CAN-01": {"3"}, "bus_protocol": {"2"}}, "software", false},
		{"no versions declared", map[string][]string{"OTHER": {"1"}}, "software", false},
		{"service of an unrelated domain", map[string][]string{"SWD-IF-CAN-01": {"2"}}, "mechanical", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			services := []ServiceInfo{
				{Name: "svc", Domain: tt.domain, InterfaceVersions: tt.supported},
				{Domain: "firmware"}, {Domain: "software"},
			}
			fs := regOf(iface).Check(services)
			if !tt.blocking {
				assert.False(t, HasBlocking(fs), "%v", fs)
				return
			}
			require.Len(t, fs, 1)
			f := fs[0]
			assert.Equal(t, finding.Blocking, f.Severity)
			assert.Equal(t, "SWD-IF-CAN-01", f.InterfaceID)
			assert.Equal(t, "3.0.0", f.Actual)
			assert.Equal(t, tt.domain, f.ViolatingDomain)
			assert.Contains(t, f.Message, "registry has SWD-IF-CAN-01 version 3.0.0 but domain service svc supports")
		})
	}
}

func TestCheckDomains(t *testing.T) {
	iface := Interface{ID: "IF-1", Version: "1.0.0", Type: "signal", Owner: "firmware", Participants: []string{"electrical", "external"}, File: "a.toml"}
	fs := regOf(iface).Check([]ServiceInfo{{Domain: "firmware"}})
	require.Len(t, fs, 1)
	assert.Equal(t, finding.Warning, fs[0].Severity)
	assert.Contains(t, fs[0].Message, `domain "electrical" has no registered domain service`)

	assert.Len(t, regOf(iface).Check([]ServiceInfo{}), 2, "no services: owner and participant reported")
	assert.Empty(t, regOf(iface).Check(nil), "nil services skips service checks")
}

func TestCheckDuplicateIDsNameBothFiles(t *testing.T) {
	reg, err := LoadRegistry("testdata/duplicate")
	require.NoError(t, err)
	fs := reg.Check(nil)
	require.Len(t, fs, 1)
	assert.Equal(t, finding.Blocking, fs[0].Severity)
	assert.Equal(t, "duplicate interface id SWD-IF-CAN-01: defined in testdata/duplicate/a.toml and testdata/duplicate/b.toml", fs[0].Message)
}

func TestCheckConflicts(t *testing.T) {
	tol := func(min, max float64, unit string) Parameter {
		return Parameter{Kind: KindTolerance, Min: min, Max: max, Nominal: min, Unit: unit}
	}
	exact := func(v any, unit string) Parameter { return Parameter{Kind: KindExact, Value: v, Unit: unit} }
	tests := []struct {
		name     string
		a, b     Parameter
		typeB    string
		conflict string
	}{
		{"disjoint tolerances", tol(0, 0.5, "ratio"), tol(0.6, 0.8, "ratio"), "", "allow disjoint ranges [0, 0.5] and [0.6, 0.8]"},
		{"overlapping tolerances", tol(0, 0.5, "ratio"), tol(0.4, 0.8, "ratio"), "", ""},
		{"touching tolerances", tol(0, 0.5, "ratio"), tol(0.5, 0.8, "ratio"), "", ""},
		{"different exact values", exact(500000.0, "bps"), exact(250000.0, "bps"), "", "allow disjoint ranges [500000, 500000] and [250000, 250000]"},
		{"same exact values", exact(500000.0, "bps"), exact(500000.0, "bps"), "", ""},
		{"exact outside tolerance", exact(12.0, "V"), tol(4.75, 5.25, "V"), "", "disjoint ranges"},
		{"different units not compared", exact(500.0, "kbps"), exact(500000.0, "bps"), "", ""},
		{"different interface types not compared", exact(1.0, ""), exact(2.0, ""), "power_rail", ""},
		{"different string values", exact("A", ""), exact("B", ""), "", `require different values "A" and "B"`},
		{"different bools", Parameter{Kind: KindBool, Value: true}, Parameter{Kind: KindBool, Value: false}, "", "require different values true and false"},
		{"disjoint enums", Parameter{Kind: KindEnum, Value: "A", Allowed: []string{"A"}}, Parameter{Kind: KindEnum, Value: "B", Allowed: []string{"B", "C"}}, "", "have no allowed value in common"},
		{"overlapping enums", Parameter{Kind: KindEnum, Value: "A", Allowed: []string{"A", "B"}}, Parameter{Kind: KindEnum, Value: "B", Allowed: []string{"B"}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typeB := tt.typeB
			if typeB == "" {
				typeB = "bus_protocol"
			}
			a := Interface{ID: "IF-A", Type: "bus_protocol", File: "a.toml", Parameters: map[string]Parameter{"p": tt.a}}
			b := Interface{ID: "IF-B", Type: typeB, File: "b.toml", Parameters: map[string]Parameter{"p": tt.b}}
			fs := regOf(a, b).Check(nil)
			if tt.conflict == "" {
				assert.Empty(t, fs)
				return
			}
			require.Len(t, fs, 1)
			assert.Equal(t, finding.Blocking, fs[0].Severity)
			assert.Equal(t, "p", fs[0].Parameter)
			assert.Contains(t, fs[0].Message, tt.conflict)
		})
	}
}

func TestCheckRefs(t *testing.T) {
	repo := fstest.MapFS{"docs/can-wiring.md": {Data: []byte("x")}}
	tests := []struct {
		ref, problem string
	}{
		{"docs/can-wiring.md", ""},
		{"./docs/can-wiring.md", ""},
		{"https://example.com/spec.pdf", ""},
		{"docs/missing.md", "file does not exist"},
		{"../outside.md", "stay inside it"},
		{"/etc/passwd", "stay inside it"},
		{"ftp://example.com/x", `unsupported URL scheme "ftp"`},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			iface := Interface{ID: "IF-1", File: "a.toml", Parameters: map[string]Parameter{"doc": {Name: "doc", Kind: KindRef, Ref: tt.ref}}}
			fs := regOf(iface).CheckRefs(repo)
			if tt.problem == "" {
				assert.Empty(t, fs)
				return
			}
			require.Len(t, fs, 1)
			assert.Equal(t, "doc", fs[0].Parameter)
			assert.Contains(t, fs[0].Message, tt.problem)
		})
	}
}
