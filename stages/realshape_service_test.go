//go:build e2e

package stages_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// Real-shape cases of other languages (issue 27): an external case may
// name a [[domains]] table, and the built-in command service with that
// preset and the real toolchain serves it instead of the Go service.

// serviceKey groups the cases one service serves.
func (c realCase) serviceKey() string {
	if c.service == nil {
		return "go"
	}
	return c.service.Name + "\x00" + c.service.Preset + "\x00" + c.service.Setup
}

// serviceInfo is the case's service as code generation's routing sees it.
func (c realCase) serviceInfo() xval.ServiceInfo {
	if c.service == nil {
		return xval.ServiceInfo{Name: "go", Domain: goservice.Domain}
	}
	return xval.ServiceInfo{Name: c.service.Name, Domain: c.service.Name}
}

// countingRouter routes to a command service as cogworks process does
// (methods it does not declare are skipped, not failed) and counts the
// simulate calls.
type countingRouter struct {
	*domain.Router
	simulations atomic.Int32
}

// Simulate counts the call and forwards it.
func (r *countingRouter) Simulate(ctx context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	r.simulations.Add(1)
	return r.Router.Simulate(ctx, req, p)
}

// realDomain is what the stages of c call: the Go service itself, or a
// router over the command service, and how many simulate calls they made.
func realDomain(t *testing.T, c realCase, svc *domain.Client) (stagekit.Domain, func() int32) {
	t.Helper()
	if c.service == nil {
		d := &stagetest.CountingDomain{Client: svc}
		return d, d.Simulations.Load
	}
	set := domain.Connect(context.Background(), []domain.ServiceConfig{svc.Config()})
	for _, st := range set.Services() {
		require.True(t, st.Available(), "service %s: %v", st.Config.Name, st.Err)
	}
	r := &countingRouter{Router: domain.NewRouter(set)}
	return r, r.simulations.Load
}

// startRealService starts the service of c: the Go domain service, or
// the command service of its [[domains]] table with its tool directories
// bound read-only.
func startRealService(t *testing.T, c realCase) *domain.Client {
	t.Helper()
	if c.service == nil {
		return stagetest.StartGoService(t)
	}
	d, err := cmdservice.Resolve(*c.service)
	require.NoError(t, err)
	sock := cmdservicetest.Start(t, d, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 5 * time.Minute}, ToolDirs: c.toolDirs})
	client, err := domain.NewClient(domain.ServiceConfig{Name: c.service.Name, Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return client
}
