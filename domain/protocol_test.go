package domain_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/finding"
)

func TestEffectiveSeverity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cat  domain.Category
		sev  finding.Severity
		want finding.Severity
	}{
		{domain.CategoryTypeError, domain.SeverityBlocking, domain.SeverityBlocking},
		{domain.CategoryStyleViolation, domain.SeverityWarning, domain.SeverityWarning},
		{"quantum_flux", domain.SeverityBlocking, domain.SeverityInformational},
	}
	for _, tt := range tests {
		d := domain.Diagnostic{Category: tt.cat, Severity: tt.sev}
		assert.Equal(t, tt.want, d.EffectiveSeverity(), tt.cat)
	}
	assert.False(t, domain.Blocking([]domain.Diagnostic{{Category: "quantum_flux", Severity: domain.SeverityBlocking}}))
	assert.True(t, domain.Blocking([]domain.Diagnostic{{Category: domain.CategoryTestFailure, Severity: domain.SeverityBlocking}}))
}

func TestErrorCodeRecoverability(t *testing.T) {
	t.Parallel()
	want := map[domain.ErrorCode]bool{
		domain.CodeToolNotFound: false, domain.CodeToolFailed: true, domain.CodeInvalidRequest: false,
		domain.CodeUnsupportedMethod: false, domain.CodeAPIVersionMismatch: false, domain.CodeTimeout: true,
		domain.CodeArtifactNotFound: false, domain.CodeInternalError: true,
	}
	for code, rec := range want {
		assert.True(t, code.Known(), code)
		assert.Equal(t, rec, code.Recoverable(), code)
	}
	assert.False(t, domain.ErrorCode("nope").Known())
	// A service claiming recoverability cannot make a contract error retryable.
	assert.False(t, (&domain.Error{Code: domain.CodeUnsupportedMethod, Recoverable: true}).Transient())
	assert.True(t, (&domain.Error{Code: domain.CodeToolFailed, Recoverable: true}).Transient())
}

func TestMajorAndCompatibility(t *testing.T) {
	t.Parallel()
	tests := []struct {
		client, service string
		ok              bool
	}{
		{"1.0.0", "1.9.3", true},
		{"1.0.0", "v1.0.0-rc.1", true},
		{"2.0.0", "1.0.0", false},
		{"1.0.0", "1.0", false},
		{"1.0.0", "x.y.z", false},
	}
	for _, tt := range tests {
		err := domain.CompatibleAPI(tt.client, tt.service)
		assert.Equal(t, tt.ok, err == nil, "%s vs %s: %v", tt.client, tt.service, err)
	}
}

func TestHandshakeHelpers(t *testing.T) {
	t.Parallel()
	hs := domain.HandshakeResult{
		Capabilities:      []string{domain.MethodValidate},
		ArtifactTypes:     []string{".go", "go.mod"},
		InterfaceVersions: map[string][]string{"bus_protocol": {"1"}, "SWD-IF-CAN-01": {"2.1.0", "3.x"}},
	}
	assert.True(t, hs.Supports(domain.MethodHandshake))
	assert.True(t, hs.Supports(domain.MethodValidate))
	assert.False(t, hs.Supports(domain.MethodNormalise))
	assert.True(t, hs.Covers("a/b.go"))
	assert.True(t, hs.Covers("sub/go.mod"))
	assert.False(t, hs.Covers("go.sum"))
	assert.True(t, hs.SupportsInterface("X", "bus_protocol", "1.4.0"))
	assert.False(t, hs.SupportsInterface("X", "bus_protocol", "2.0.0"))
	assert.True(t, hs.SupportsInterface("SWD-IF-CAN-01", "bus_protocol", "2.1.0"))
	assert.True(t, hs.SupportsInterface("SWD-IF-CAN-01", "bus_protocol", "3.0.1"))
	assert.False(t, hs.SupportsInterface("SWD-IF-CAN-01", "bus_protocol", "2.2.0"))
	assert.False(t, hs.SupportsInterface("Y", "power_rail", "1.0.0"))
}

func TestLoadServices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, wantErr string
		want                   []domain.ServiceConfig
	}{
		{name: "valid", content: `
[[services]]
name = "go"
transport = "unix"
endpoint = "/run/go.sock"

[[services]]
name = "ecad"
transport = "http"
endpoint = "127.0.0.1:7070"
domain = "electrical"
`, want: []domain.ServiceConfig{
			{Name: "go", Transport: "unix", Endpoint: "/run/go.sock"},
			{Name: "ecad", Transport: "http", Endpoint: "127.0.0.1:7070", Domain: "electrical"},
		}},
		{name: "empty", content: ``, want: nil},
		{name: "bad transport", content: "[[services]]\nname = \"go\"\ntransport = \"grpc\"\nendpoint = \"x\"\n", wantErr: `services[0]: service "go": field transport "grpc"`},
		{name: "missing name", content: "[[services]]\ntransport = \"unix\"\nendpoint = \"x\"\n", wantErr: "field name is required"},
		{name: "missing endpoint", content: "[[services]]\nname = \"go\"\ntransport = \"unix\"\n", wantErr: "field endpoint is required"},
		{name: "bad http endpoint", content: "[[services]]\nname = \"go\"\ntransport = \"http\"\nendpoint = \"https://x:1\"\n", wantErr: "field endpoint"},
		{name: "duplicate", content: "[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = \"a\"\n[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = \"b\"\n", wantErr: `services[1]: field name "go" is a duplicate`},
		{name: "unknown key", content: "[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = \"a\"\ncapabilities = [\"validate\"]\n", wantErr: "unknown keys services.capabilities"},
		{name: "bad toml", content: "[[services]\n", wantErr: "load services"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "services.toml")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			got, err := domain.LoadServices(path)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := domain.LoadServices(filepath.Join(t.TempDir(), "missing.toml"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestServicesPath(t *testing.T) {
	t.Parallel()
	assert.Equal(t, filepath.Join("/ws", ".cogworks/services.toml"), domain.ServicesPath("/ws", ""))
	assert.Equal(t, "/etc/cw.toml", domain.ServicesPath("/ws", "/etc/cw.toml"))
}
