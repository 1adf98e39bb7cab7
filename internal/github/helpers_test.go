package github

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
)

var testRepo = Repo{Owner: "o", Name: "r"}

// newTestClient runs a Client against h served under /api/v3/.
func newTestClient(t *testing.T, h http.Handler, mutate ...func(*Options)) (*Client, *testkit.SleepRecorder) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rec := &testkit.SleepRecorder{}
	opts := Options{BaseURL: srv.URL + "/api/v3/", Token: "test-token", Sleep: rec.Sleep}
	for _, m := range mutate {
		m(&opts)
	}
	c, err := New(context.Background(), opts)
	require.NoError(t, err)
	return c, rec
}

// failOnRequest is a handler for tests that must send nothing.
func failOnRequest(t *testing.T) http.Handler {
	t.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusTeapot)
	})
}

func writeJSON(t *testing.T, w http.ResponseWriter, status int, v any) {
	t.Helper()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	require.NoError(t, json.NewEncoder(w).Encode(v))
}

func readJSON(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "body %s", data)
	return m
}

// roundTripperFunc adapts a function to http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
