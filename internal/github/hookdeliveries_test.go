package github_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
)

// TestHookDeliveriesAgainstTheSimulator lists the App's delivery log page
// by page (GitHub's cursor pagination) and redelivers a failed attempt,
// which reaches the webhook again under the same guid.
func TestHookDeliveriesAgainstTheSimulator(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	sim := githubsim.New(githubsim.WithResponseLog())
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.AddApp(12, "cogworks", "cogworks[bot]", &key.PublicKey)
	var calls atomic.Int64
	var mu sync.Mutex
	var seen []string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-GitHub-Delivery"))
		mu.Unlock()
		if calls.Add(1) == 2 {
			w.WriteHeader(http.StatusServiceUnavailable) // the second delivery is refused once
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(receiver.Close)
	sim.SetAppWebhook(12, receiver.URL, []byte("s"))
	for range 5 {
		_, err := sim.DeliverAppEvent(12, "issues", "labeled", 7, []byte(`{"action":"labeled"}`))
		require.NoError(t, err)
	}

	apps, err := github.NewAppClients(github.Options{BaseURL: url + "/api/v3/",
		App: &github.AppAuth{AppID: 12, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})}})
	require.NoError(t, err)
	ctx := t.Context()
	sent := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
	var all []github.HookDelivery
	cursor, pages := "", 0
	for {
		page, next, err := apps.ListHookDeliveries(ctx, cursor, 2)
		require.NoError(t, err)
		pages++
		all = append(all, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	assert.Equal(t, 3, pages, "5 attempts in pages of 2")
	require.Len(t, all, 5)
	assert.Equal(t, sent()[4], all[0].GUID, "newest first")
	failed := all[3]
	assert.Equal(t, sent()[1], failed.GUID)
	assert.Equal(t, 503, failed.StatusCode)
	assert.NotEqual(t, "OK", failed.Status)
	assert.Equal(t, "OK", all[0].Status)
	assert.Equal(t, int64(7), failed.Installation)
	assert.Equal(t, "issues", failed.Event)

	require.NoError(t, apps.RedeliverHookDelivery(ctx, failed.ID), "202 is success")
	require.Len(t, sent(), 6, "the simulator sends a redelivery before it answers")
	assert.Equal(t, failed.GUID, sent()[5], "a redelivery keeps the guid")
	page, _, err := apps.ListHookDeliveries(ctx, "", 1)
	require.NoError(t, err)
	assert.True(t, page[0].Redelivery)
	assert.Equal(t, "OK", page[0].Status)
	assert.Error(t, apps.RedeliverHookDelivery(ctx, 999999), "an unknown attempt")

	d, err := openapi.Default()
	require.NoError(t, err)
	assert.NoError(t, d.CheckLog(sim.Requests()), "requests and answers as GitHub's OpenAPI description has them")
}
