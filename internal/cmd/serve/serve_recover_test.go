package serve_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/secrets"
)

// TestRunServeRedeliversWhatFailedWhileItWasDown drives the real `cogworks
// serve` wiring in App mode: a delivery GitHub could not make while serve
// was down stays failed in the App's delivery log (GitHub does not retry),
// and serve redelivers it when it starts.
func TestRunServeRedeliversWhatFailedWhileItWasDown(t *testing.T) {
	a := newAppFixture(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // serve is down: nothing listens there yet
	a.sim.SetAppWebhook(testAppID, "http://"+addr+"/webhook", []byte(testWebhookKey))
	// An issue without cogworks:run: serve answers it from the payload
	// (202 ignored), so no step runs.
	body := fmt.Appendf(nil, `{"action":"opened","issue":{"number":1,"labels":[]},"repository":{"full_name":%q},"installation":{"id":%d},"sender":{"login":"alice","type":"User"}}`, a.repo, testInstallation)
	failed, err := a.sim.DeliverAppEvent(testAppID, "issues", "opened", testInstallation, body)
	require.NoError(t, err)
	require.NotEqual(t, "OK", failed.Status, "nothing answered")

	env := map[string]string{
		secrets.EnvWebhookSecret: testWebhookKey, github.EnvAppID: strconv.Itoa(testAppID),
		github.EnvAppPrivateKey: string(a.key), github.EnvAPIURL: a.url + "/api/v3/",
	}
	f := &factory.Factory{IO: factory.IOStreams{Out: io.Discard, ErrOut: io.Discard}, Getenv: func(k string) string { return env[k] }, Clock: time.Now}
	factory.Wire(f)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.RunServe(ctx, f, &serve.ServeOptions{Listen: addr, Workers: 1, QueueSize: 10, MaxSteps: 1, Grace: time.Second,
			ReplayWindow: time.Hour, RedeliverInterval: time.Hour, RedeliverWindow: time.Hour})
	}()
	require.Eventually(t, func() bool {
		attempts := a.sim.HookAttempts(testAppID)
		last := attempts[len(attempts)-1]
		return len(attempts) == 2 && last.Redelivery && last.GUID == failed.GUID && last.StatusCode == http.StatusAccepted
	}, 10*time.Second, 20*time.Millisecond, "the failed delivery is redelivered at start and accepted: %+v", a.sim.HookAttempts(testAppID))
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.Len(t, a.sim.HookAttempts(testAppID), 2, "one redelivery, not one per pass")
}
