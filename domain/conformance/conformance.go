package conformance

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// Fixtures is the input the suite calls every declared method with.
type Fixtures struct {
	// Request is a valid request for the service's domain (repository and
	// artifacts); api_version, request_id and method are filled in.
	Request domain.Request
	// Simulate are the params of the simulate call.
	Simulate domain.SimulateParams
}

// unknownMethod is a method no Extension API version defines.
const unknownMethod = "conformance_no_such_method"

// Run runs the conformance suite against the service behind client.
func Run(t *testing.T, client *domain.Client, fx Fixtures) {
	t.Helper()
	ctx := context.Background()
	hs, err := client.Handshake(ctx)
	require.NoError(t, err, "handshake")

	t.Run("handshake shape", func(t *testing.T) {
		assert.NotEmpty(t, hs.Name, "name")
		assert.NotEmpty(t, hs.ServiceVersion, "service_version")
		assert.NotEmpty(t, hs.Domain, "domain")
		assert.NotEmpty(t, hs.ArtifactTypes, "artifact_types")
		assert.NoError(t, domain.CompatibleAPI(domain.APIVersion, hs.APIVersion), "api_version")
		for _, m := range hs.Capabilities {
			assert.True(t, domain.KnownMethod(m), "capability %q is not an Extension API method", m)
		}
		assert.Equal(t, len(hs.Capabilities), len(uniq(hs.Capabilities)), "capabilities has duplicates")
		for id, versions := range hs.InterfaceVersions {
			assert.NotEmpty(t, versions, "interface_versions[%s] is empty", id)
		}
	})

	t.Run("declares the methods the pipeline needs", func(t *testing.T) {
		assert.NoError(t, PipelineMethods(hs))
	})

	fx.Request = OwnTypes(hs, fx.Request)
	t.Run("fixtures carry the service's own artifact types", func(t *testing.T) {
		assert.NoError(t, coversOwnTypes(hs, fx.Request))
	})

	t.Run("health", func(t *testing.T) {
		assert.NoError(t, client.Health(ctx))
	})

	t.Run("declared methods answer schema-valid results", func(t *testing.T) {
		for _, m := range hs.Capabilities {
			if m == domain.MethodHandshake || !domain.KnownMethod(m) {
				continue
			}
			t.Run(m, func(t *testing.T) {
				var params any
				if m == domain.MethodSimulate {
					params = fx.Simulate
				}
				// Call validates the result against the method's schema.
				require.NoError(t, client.Call(ctx, m, fx.Request, params, nil))
			})
		}
	})

	if hs.Supports(domain.MethodRepoMap) {
		t.Run("repo_map maps the request's artifacts in place", func(t *testing.T) {
			res, err := client.RepoMap(ctx, fx.Request)
			require.NoError(t, err)
			checkRepoMap(t, hs, res, fx.Request.Artifacts)
		})
	}

	t.Run("unknown method answers unsupported_method", func(t *testing.T) {
		resp, err := client.PostRaw(ctx, unknownMethod,
			[]byte(`{"api_version":"`+domain.APIVersion+`","request_id":"c1","method":"`+unknownMethod+`","repository":{"path":""}}`))
		require.NoError(t, err)
		requireError(t, resp, domain.CodeUnsupportedMethod)
	})

	method := domain.MethodHandshake
	for _, m := range hs.Capabilities {
		if m != domain.MethodHandshake && domain.KnownMethod(m) {
			method = m
			break
		}
	}
	t.Run("malformed envelope answers invalid_request", func(t *testing.T) {
		for _, body := range []string{`{not json`, `[]`, `{"api_version":"` + domain.APIVersion + `","method":"` + method + `"}`} {
			resp, err := client.PostRaw(ctx, method, []byte(body))
			require.NoError(t, err, body)
			requireError(t, resp, domain.CodeInvalidRequest)
		}
	})

	if method != domain.MethodHandshake {
		t.Run("incompatible api_version answers api_version_mismatch", func(t *testing.T) {
			resp, err := client.PostRaw(ctx, method,
				[]byte(`{"api_version":"999.0.0","request_id":"c2","method":"`+method+`","repository":{"path":""}}`))
			require.NoError(t, err)
			requireError(t, resp, domain.CodeAPIVersionMismatch)
		})

		t.Run("client timeout yields timeout and the service survives", func(t *testing.T) {
			impatient, err := domain.NewClient(client.Config(), domain.WithSchemas(client.Schemas()),
				domain.WithMethodTimeout(method, time.Millisecond))
			require.NoError(t, err)
			defer impatient.Close()
			_, err = impatient.Handshake(ctx)
			require.NoError(t, err)
			err = impatient.Call(ctx, method, fx.Request, nil, nil)
			var de *domain.Error
			require.True(t, errors.As(err, &de), "want *domain.Error timeout, got %v", err)
			assert.Equal(t, domain.CodeTimeout, de.Code)
			assert.True(t, de.Transient())
			assert.NoError(t, client.Health(ctx), "service unhealthy after a cancelled request")
		})
	}
}

// checkRepoMap checks that every mapped file lies in its package's
// directory, that paths are repository-relative, and that every artifact
// of a type the service covers is mapped (artifacts are part of the tree).
func checkRepoMap(t *testing.T, hs domain.HandshakeResult, res domain.RepoMapResult, artifacts []domain.Artifact) {
	t.Helper()
	mapped := map[string]bool{}
	for _, p := range res.Packages {
		assert.NotEmpty(t, p.ImportPath, "package %s: import_path", p.Dir)
		assert.False(t, path.IsAbs(p.Dir) || strings.HasPrefix(path.Clean(p.Dir), ".."), "package dir %q is not repository-relative", p.Dir)
		for _, f := range p.Files {
			assert.Equal(t, path.Clean(p.Dir), path.Dir(f.Path), "file %s is not in its package's directory %s", f.Path, p.Dir)
			mapped[f.Path] = true
		}
	}
	for _, a := range artifacts {
		if hs.Covers(a.Path) && !a.Delete {
			assert.True(t, mapped[path.Clean(a.Path)], "artifact %s is missing from the map", a.Path)
		}
	}
}

func requireError(t *testing.T, resp domain.Response, code domain.ErrorCode) {
	t.Helper()
	require.Equal(t, domain.StatusError, resp.Status)
	require.NotNil(t, resp.Error)
	assert.Equal(t, code, resp.Error.Code, resp.Error.Message)
	assert.Equal(t, code.Recoverable(), resp.Error.Recoverable, "recoverable for %s", code)
	assert.NotEmpty(t, resp.Error.Message)
}

func uniq(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return slices.Compact(c)
}
