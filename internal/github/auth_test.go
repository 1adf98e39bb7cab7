package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appKey is the package's one App key: a 2048-bit RSA key costs 0.1-1 s to
// generate, and no test here depends on keys differing between tests.
var appKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// testKeyPEM returns the App key for App auth tests.
func testKeyPEM(t *testing.T) []byte {
	t.Helper()
	key, err := appKey()
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

func TestAppAuthUsesInstallationToken(t *testing.T) {
	t.Parallel()
	var tokenRequests atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/app/installations/99/access_tokens", func(w http.ResponseWriter, r *http.Request) {
		tokenRequests.Add(1)
		auth := r.Header.Get("Authorization")
		assert.True(t, strings.HasPrefix(auth, "Bearer "), "token request is signed with the App JWT, got %q", auth)
		assert.Equal(t, 3, strings.Count(strings.TrimPrefix(auth, "Bearer "), ".")+1, "a JWT has three parts")
		body, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		assert.JSONEq(t, `{}`, string(body), "GitHub's description states an optional object, not null")
		writeJSON(t, w, 201, map[string]any{"token": "ghs_installation", "expires_at": time.Now().Add(time.Hour).Format(time.RFC3339)})
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/issues/1", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token ghs_installation" {
			writeJSON(t, w, 401, map[string]any{"message": "Bad credentials"})
			return
		}
		writeJSON(t, w, 200, map[string]any{"number": 1, "title": "as app"})
	})
	key := testKeyPEM(t)
	c, _ := newTestClient(t, mux, func(o *Options) {
		o.Token = ""
		o.App = &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: key}
	})
	ctx := context.Background()
	for range 2 {
		got, err := c.GetIssue(ctx, testRepo, 1)
		require.NoError(t, err)
		assert.Equal(t, "as app", got.Title)
	}
	assert.EqualValues(t, 1, tokenRequests.Load(), "the installation token is reused until it expires")
	assert.EqualValues(t, 3, c.Requests(), "token request plus two API calls")
}

func TestAppAuthTokenFailureIsReported(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v3/app/installations/99/access_tokens", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 401, map[string]any{"message": "A JSON web token could not be decoded"})
	})
	c, _ := newTestClient(t, mux, func(o *Options) {
		o.Token = ""
		o.App = &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: testKeyPEM(t)}
	})
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "get issue o/r#1")
	assert.NotContains(t, err.Error(), "PRIVATE KEY")
}

func TestIdentityOfAnAppIsItsBotLogin(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/app", func(w http.ResponseWriter, r *http.Request) {
		assert.True(t, strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "), "GET /app is signed with the App JWT")
		writeJSON(t, w, 200, map[string]any{"id": 12, "slug": "cogworks-acme"})
	})
	c, _ := newTestClient(t, mux, func(o *Options) {
		o.Token = ""
		o.App = &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: testKeyPEM(t)}
	})
	login, err := c.Identity(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "cogworks-acme[bot]", login)
}

func TestIdentityOfATokenIsItsUser(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/user", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"login": "acme-bot"})
	})
	c, _ := newTestClient(t, mux)
	login, err := c.Identity(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "acme-bot", login)
}

func TestIdentityOfAnInstallationTokenComesFromGraphQL(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/user", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 403, map[string]any{"message": "Resource not accessible by integration"})
	})
	mux.HandleFunc("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": "my-app[bot]"}}})
	})
	c, _ := newTestClient(t, mux)
	login, err := c.Identity(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "my-app[bot]", login, "an App token passed as a token (actions/create-github-app-token) is its App's bot")
}

// Only a 403 sends Identity to GraphQL: any other refusal of GET /user
// (bad credentials here) is the caller's error, not hidden behind a
// second request.
func TestIdentityReportsOtherUserErrors(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/user", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 401, map[string]any{"message": "Bad credentials"})
	})
	mux.HandleFunc("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("GraphQL asked after a 401 from GET /user")
		writeJSON(t, w, 200, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": "someone"}}})
	})
	c, _ := newTestClient(t, mux)
	_, err := c.Identity(context.Background())
	require.Error(t, err)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.Status)
	assert.Contains(t, err.Error(), "read the authenticated user")
}

func TestGraphQLURL(t *testing.T) {
	assert.Equal(t, "https://api.github.com/graphql", graphQLURL("https://api.github.com/"))
	assert.Equal(t, "https://ghe.example.com/api/graphql", graphQLURL("https://ghe.example.com/api/v3/"))
}

// A server that makes and forgets installation clients for the whole of
// its life must not leave anything running per client: the expirable
// caches it used to build started a goroutine each that never stopped.
func TestForgottenInstallationClientsLeaveNoGoroutines(t *testing.T) {
	apps, err := NewAppClients(Options{BaseURL: "https://ghe.example.com/api/v3/", App: &AppAuth{AppID: 12, PrivateKey: testKeyPEM(t)}})
	require.NoError(t, err)
	ctx := context.Background()
	warm, err := apps.Installation(ctx, 1) // any one-time set-up happens here
	require.NoError(t, err)
	require.NotNil(t, warm)
	apps.Forget(1)

	before := runtime.NumGoroutine()
	for id := int64(2); id < 52; id++ {
		_, err := apps.Installation(ctx, id)
		require.NoError(t, err)
		apps.Forget(id)
	}
	assert.Zero(t, apps.Cached())
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+2, "50 clients made and forgotten")
}
