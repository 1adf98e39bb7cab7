package domain_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
)

// serveUnix serves h on a unix socket in a short temporary directory.
func serveUnix(t *testing.T, h http.Handler) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	require.NoError(t, err)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		_ = os.RemoveAll(dir)
	})
	return sock
}

// deadSocket returns a socket path nothing listens on any more.
func deadSocket(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cw")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "dead.sock")
	ln, err := net.Listen("unix", sock)
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())
	return sock
}

func unixClient(t *testing.T, name, sock string, opts ...domain.Option) *domain.Client {
	t.Helper()
	c, err := domain.NewClient(domain.ServiceConfig{Name: name, Transport: domain.TransportUnix, Endpoint: sock}, opts...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

// fakeService answers the handshake with hs and every declared method with
// an empty diagnostics result, counting calls per method.
type fakeService struct {
	hs    domain.HandshakeResult
	mu    sync.Mutex
	calls map[string]int
}

func newFake(apiVersion string, caps ...string) *fakeService {
	return &fakeService{calls: map[string]int{}, hs: domain.HandshakeResult{
		Name: "fake", ServiceVersion: "0.0.1", APIVersion: apiVersion, Domain: "electrical",
		Capabilities: append([]string{}, caps...), ArtifactTypes: []string{".kicad_sch"}, InterfaceTypes: []string{},
		InterfaceVersions: map[string][]string{},
	}}
}

func (f *fakeService) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, domain.PathPrefix)
	f.mu.Lock()
	f.calls[method]++
	f.mu.Unlock()
	var req domain.Request
	_ = json.NewDecoder(r.Body).Decode(&req)
	var result any = domain.DiagnosticsResult{Diagnostics: []domain.Diagnostic{}}
	if method == domain.MethodHandshake {
		result = f.hs
	}
	raw, _ := json.Marshal(result)
	_ = json.NewEncoder(w).Encode(domain.Response{RequestID: req.RequestID, Status: domain.StatusOK, Result: raw})
}

func TestAssertEXT003_MajorAPIVersionMismatchRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("service v1, CogWorks requires v2", func(t *testing.T) {
		sock := goservicetest.Start(t, goservice.Options{})
		c := unixClient(t, "go", sock, domain.WithAPIVersion("2.0.0"))
		_, err := c.Handshake(ctx)
		var de *domain.Error
		require.True(t, errors.As(err, &de), "%v", err)
		assert.Equal(t, domain.CodeAPIVersionMismatch, de.Code)
		assert.False(t, de.Transient())
		assert.Contains(t, de.Message, domain.APIVersion)
		assert.Contains(t, de.Message, "2.0.0")
		// Methods are refused too: the failed handshake is not cached.
		_, err = c.Validate(ctx, domain.Request{})
		require.True(t, errors.As(err, &de))
		assert.Equal(t, domain.CodeAPIVersionMismatch, de.Code)
	})
	t.Run("service v2, CogWorks requires v1", func(t *testing.T) {
		c := unixClient(t, "fake", serveUnix(t, newFake("2.3.0", domain.MethodValidate)))
		_, err := c.Handshake(ctx)
		var de *domain.Error
		require.True(t, errors.As(err, &de), "%v", err)
		assert.Equal(t, domain.CodeAPIVersionMismatch, de.Code)
		assert.Contains(t, de.Error(), "2.3.0")
		assert.Contains(t, de.Error(), domain.APIVersion)
	})
	t.Run("same MAJOR, different MINOR accepted", func(t *testing.T) {
		c := unixClient(t, "fake", serveUnix(t, newFake("1.7.2", domain.MethodValidate)))
		hs, err := c.Handshake(ctx)
		require.NoError(t, err)
		assert.Equal(t, "1.7.2", hs.APIVersion)
	})
	t.Run("service rejects a request with another MAJOR", func(t *testing.T) {
		c := unixClient(t, "go", goservicetest.Start(t, goservice.Options{}))
		resp, err := c.PostRaw(ctx, domain.MethodValidate, []byte(`{"api_version":"2.0.0","request_id":"r","method":"validate","repository":{"path":""}}`))
		require.NoError(t, err)
		require.NotNil(t, resp.Error)
		assert.Equal(t, domain.CodeAPIVersionMismatch, resp.Error.Code)
	})
}

func TestAssertEXT004_UnsupportedMethodIsNonRetryable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := newFake(domain.APIVersion, domain.MethodValidate, domain.MethodExtractInterfaces)
	c := unixClient(t, "fake", serveUnix(t, fake))

	_, err := c.Validate(ctx, domain.Request{})
	require.NoError(t, err)

	_, err = c.Normalise(ctx, domain.Request{})
	var de *domain.Error
	require.True(t, errors.As(err, &de), "%v", err)
	assert.Equal(t, domain.CodeUnsupportedMethod, de.Code)
	assert.False(t, de.Transient())
	assert.Equal(t, "fake", de.Service)
	assert.Equal(t, domain.MethodNormalise, de.Method)
	assert.Contains(t, de.Error(), "normalise")
	assert.Equal(t, 0, fake.count(domain.MethodNormalise), "no round trip for an undeclared method")
	assert.Equal(t, 1, fake.count(domain.MethodHandshake), "handshake is cached")

	t.Run("service answers unsupported_method for unknown methods", func(t *testing.T) {
		c := unixClient(t, "go", goservicetest.Start(t, goservice.Options{}))
		err := c.Call(ctx, "compile_firmware", domain.Request{}, nil, nil)
		// The client refuses locally: compile_firmware is not a capability.
		require.True(t, errors.As(err, &de), "%v", err)
		assert.Equal(t, domain.CodeUnsupportedMethod, de.Code)
		resp, err := c.PostRaw(ctx, "compile_firmware", []byte(`{}`))
		require.NoError(t, err)
		require.NotNil(t, resp.Error)
		assert.Equal(t, domain.CodeUnsupportedMethod, resp.Error.Code)
		assert.False(t, resp.Error.Recoverable)
	})
}

func TestAssertEXT001_PrimaryServiceUnavailableHalts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dead := deadSocket(t)
	set := domain.Connect(ctx, []domain.ServiceConfig{
		{Name: "go", Transport: domain.TransportUnix, Endpoint: dead},
		{Name: "ecad", Transport: domain.TransportUnix, Endpoint: serveUnix(t, newFake(domain.APIVersion, domain.MethodValidate))},
	})
	_, err := set.Resolve([]string{"brake/brake.go", "go.mod"})
	var halt *domain.HaltError
	require.True(t, errors.As(err, &halt), "%v", err)
	assert.Equal(t, []string{"go"}, halt.Services)
	assert.Equal(t, []string{"brake/brake.go", "go.mod"}, halt.Artifacts)
	assert.Contains(t, halt.Error(), `"go"`)
	assert.Contains(t, halt.Error(), dead)
}

func TestAssertEXT002_SecondaryServiceUnavailableContinuesWithWarning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dead := deadSocket(t)
	set := domain.Connect(ctx, []domain.ServiceConfig{
		{Name: "go", Transport: domain.TransportUnix, Endpoint: goservicetest.Start(t, goservice.Options{})},
		{Name: "ecad", Transport: domain.TransportUnix, Endpoint: dead, Domain: "electrical"},
	})
	res, err := set.Resolve([]string{"brake/brake.go"})
	require.NoError(t, err)
	require.NotNil(t, res.Primary)
	assert.Equal(t, "go", res.Primary.Name())
	assert.Empty(t, res.Secondary)
	require.Len(t, res.Skipped, 1)
	assert.Equal(t, "ecad", res.Skipped[0].Service)
	assert.Equal(t, []string{"electrical"}, res.SkippedDomains())
	require.Len(t, res.Warnings(), 1)
	assert.Contains(t, res.Warnings()[0], "cross-domain checks for domain electrical were skipped")
	assert.Contains(t, res.Warnings()[0], dead)
}

func TestBadServices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	garbage := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"request_id": 12, "status": `)
	})
	wrongShape := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"request_id":"x","status":"ok","result":{"name":1}}`)
	})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	tests := []struct {
		name  string
		sock  string
		check func(t *testing.T, err error)
	}{
		{"garbage JSON", serveUnix(t, garbage), func(t *testing.T, err error) {
			var pe *domain.ProtocolError
			require.True(t, errors.As(err, &pe), "%v", err)
			assert.Equal(t, "svc", pe.Service)
		}},
		{"schema violation", serveUnix(t, wrongShape), func(t *testing.T, err error) {
			var pe *domain.ProtocolError
			require.True(t, errors.As(err, &pe), "%v", err)
		}},
		{"hanging service", serveUnix(t, hang), func(t *testing.T, err error) {
			var de *domain.Error
			require.True(t, errors.As(err, &de), "%v", err)
			assert.Equal(t, domain.CodeTimeout, de.Code)
			assert.True(t, de.Transient())
		}},
		{"dead socket", deadSocket(t), func(t *testing.T, err error) {
			var ue *domain.UnavailableError
			require.True(t, errors.As(err, &ue), "%v", err)
			assert.Equal(t, "svc", ue.Service)
			assert.Contains(t, ue.Error(), "unix:")
		}},
		{"missing socket", filepath.Join(t.TempDir(), "none.sock"), func(t *testing.T, err error) {
			var ue *domain.UnavailableError
			require.True(t, errors.As(err, &ue), "%v", err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := unixClient(t, "svc", tt.sock, domain.WithMethodTimeout(domain.MethodHandshake, 200*time.Millisecond))
			_, err := c.Handshake(ctx)
			require.Error(t, err)
			tt.check(t, err)
		})
	}
}

func TestClientOverTCP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newFake(domain.APIVersion, domain.MethodValidate))
	t.Cleanup(srv.Close)
	for _, endpoint := range []string{srv.URL, strings.TrimPrefix(srv.URL, "http://")} {
		c, err := domain.NewClient(domain.ServiceConfig{Name: "tcp", Transport: domain.TransportHTTP, Endpoint: endpoint})
		require.NoError(t, err)
		_, err = c.Validate(context.Background(), domain.Request{})
		require.NoError(t, err, endpoint)
		require.NoError(t, c.Health(context.Background()), endpoint) // the fake answers any path
	}
}

func TestHealthTable(t *testing.T) {
	t.Parallel()
	rows := domain.HealthTable(context.Background(), []domain.ServiceConfig{
		{Name: "go", Transport: domain.TransportUnix, Endpoint: goservicetest.Start(t, goservice.Options{})},
		{Name: "dead", Transport: domain.TransportUnix, Endpoint: deadSocket(t), Domain: "mechanical"},
		{Name: "future", Transport: domain.TransportUnix, Endpoint: serveUnix(t, newFake("3.0.0"))},
	})
	require.Len(t, rows, 3)
	assert.Equal(t, "ok", rows[0].Status, rows[0].Error)
	assert.Equal(t, "software", rows[0].Domain)
	assert.Equal(t, domain.APIVersion, rows[0].APIVersion)
	assert.Contains(t, rows[0].Capabilities, domain.MethodSimulate)
	assert.Equal(t, "unavailable", rows[1].Status)
	assert.Equal(t, "mechanical", rows[1].Domain)
	assert.NotEmpty(t, rows[1].Error)
	assert.Equal(t, "incompatible", rows[2].Status)
}

func TestTimeoutsFor(t *testing.T) {
	t.Parallel()
	tm := domain.DefaultTimeouts()
	assert.Equal(t, 10*time.Minute, tm.For(domain.MethodSimulate))
	assert.Equal(t, 5*time.Minute, tm.For(domain.MethodValidate))
	tm.PerMethod = map[string]time.Duration{domain.MethodValidate: time.Second}
	assert.Equal(t, time.Second, tm.For(domain.MethodValidate))
	assert.Equal(t, 5*time.Minute, domain.Timeouts{}.For(domain.MethodValidate))
}
