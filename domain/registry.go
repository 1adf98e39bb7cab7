package domain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ServiceState is one registered service after its handshake.
type ServiceState struct {
	Config ServiceConfig
	// Client is nil only when the registration itself was invalid.
	Client *Client
	// Handshake is the zero value unless the service is available.
	Handshake HandshakeResult
	// Err is why the service is unavailable (unreachable, incompatible API
	// version, protocol error); nil when available.
	Err error
}

// Available reports whether the handshake succeeded.
func (s ServiceState) Available() bool { return s.Err == nil }

// Domain is the handshake's domain, else the registration's hint, else the
// service name.
func (s ServiceState) Domain() string {
	switch {
	case s.Handshake.Domain != "":
		return s.Handshake.Domain
	case s.Config.Domain != "":
		return s.Config.Domain
	}
	return s.Config.Name
}

// Set is the group of registered services of one invocation, each
// handshaken once.
type Set struct {
	states []ServiceState
}

// Connect builds a client per registration and handshakes all of them
// concurrently. It never fails: unreachable or incompatible services are
// recorded as unavailable and classified by Resolve.
func Connect(ctx context.Context, cfgs []ServiceConfig, opts ...Option) *Set {
	states := make([]ServiceState, len(cfgs))
	if len(cfgs) > 0 {
		if schemas, err := CompileSchemas(); err == nil {
			opts = append([]Option{WithSchemas(schemas)}, opts...)
		}
	}
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		states[i].Config = cfg
		c, err := NewClient(cfg, opts...)
		if err != nil {
			states[i].Err = err
			continue
		}
		states[i].Client = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs, err := c.Handshake(ctx)
			states[i].Handshake, states[i].Err = hs, err
		}()
	}
	wg.Wait()
	return &Set{states: states}
}

// Services returns the state of every registered service in registration
// order.
func (s *Set) Services() []ServiceState { return append([]ServiceState(nil), s.states...) }

// Skipped records a secondary service whose cross-domain checks are skipped.
type Skipped struct {
	Service  string
	Domain   string
	Endpoint string
	Reason   string
}

// Warning renders the line to report in the PR and the audit trail.
func (k Skipped) Warning() string {
	return fmt.Sprintf("domain service %q (domain %s, %s) is unavailable: %s; cross-domain checks for domain %s were skipped",
		k.Service, k.Domain, k.Endpoint, k.Reason, k.Domain)
}

// Resolution is the outcome of classifying the services for a set of
// artifacts.
type Resolution struct {
	// Primary covers the artifacts; nil when there are no artifacts or no
	// registered service covers them.
	Primary *Client
	// Secondary lists the other available services.
	Secondary []*Client
	// Skipped lists unavailable secondary services (ASSERT-EXT-002).
	Skipped []Skipped
}

// Warnings returns one message per skipped service.
func (r Resolution) Warnings() []string {
	out := make([]string, len(r.Skipped))
	for i, k := range r.Skipped {
		out[i] = k.Warning()
	}
	return out
}

// SkippedDomains returns the domains whose cross-domain checks are skipped.
func (r Resolution) SkippedDomains() []string {
	out := make([]string, len(r.Skipped))
	for i, k := range r.Skipped {
		out[i] = k.Domain
	}
	return out
}

// Resolve picks the primary service for artifacts (repository-relative
// paths): the available service whose artifact types cover the most of them.
// When some artifact is covered by no available service while a registered
// service is unavailable, that service may be the primary, so Resolve halts
// with a *HaltError naming it (ASSERT-EXT-001). Otherwise unavailable
// services are secondary: the pipeline continues and they are listed in
// Skipped (ASSERT-EXT-002).
func (s *Set) Resolve(artifacts []string) (Resolution, error) {
	var res Resolution
	var unavailable []ServiceState
	best, bestCount := -1, 0
	covered := make(map[string]bool)
	for i, st := range s.states {
		if !st.Available() {
			unavailable = append(unavailable, st)
			continue
		}
		n := 0
		for _, a := range artifacts {
			if st.Handshake.Covers(a) {
				n++
				covered[a] = true
			}
		}
		if n > bestCount {
			best, bestCount = i, n
		}
	}
	var uncovered []string
	for _, a := range artifacts {
		if !covered[a] {
			uncovered = append(uncovered, a)
		}
	}
	if len(uncovered) > 0 && len(unavailable) > 0 {
		halt := &HaltError{Artifacts: uncovered}
		for _, st := range unavailable {
			halt.Services = append(halt.Services, st.Config.Name)
			halt.Reasons = append(halt.Reasons, fmt.Sprintf("%q at %s: %v", st.Config.Name, st.Config.Describe(), st.Err))
		}
		return Resolution{}, halt
	}
	for i, st := range s.states {
		switch {
		case !st.Available():
			res.Skipped = append(res.Skipped, Skipped{
				Service: st.Config.Name, Domain: st.Domain(), Endpoint: st.Config.Describe(), Reason: reason(st.Err),
			})
		case i == best:
			res.Primary = st.Client
		default:
			res.Secondary = append(res.Secondary, st.Client)
		}
	}
	return res, nil
}

func reason(err error) string {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// HealthRow is one line of `cogworks health`.
type HealthRow struct {
	Name         string
	Domain       string
	Version      string
	APIVersion   string
	Capabilities []string
	// ArtifactTypes are the types the service declares (doctor checks
	// they cover the repository's languages).
	ArtifactTypes []string
	// Status is "ok", "unavailable", "incompatible" or "error".
	Status string
	// Error is empty when Status is ok.
	Error string
}

// HealthTable handshakes and health-checks every service, one row each in
// registration order.
func HealthTable(ctx context.Context, cfgs []ServiceConfig, opts ...Option) []HealthRow {
	set := Connect(ctx, cfgs, opts...)
	rows := make([]HealthRow, 0, len(cfgs))
	for _, st := range set.states {
		row := HealthRow{Name: st.Config.Name, Domain: st.Domain(), Status: "ok"}
		err := st.Err
		if err == nil {
			row.Version = st.Handshake.ServiceVersion
			row.APIVersion = st.Handshake.APIVersion
			row.Capabilities = append([]string(nil), st.Handshake.Capabilities...)
			row.ArtifactTypes = append([]string(nil), st.Handshake.ArtifactTypes...)
			sort.Strings(row.Capabilities)
			err = st.Client.Health(ctx)
		}
		if err != nil {
			row.Status, row.Error = healthStatus(err), err.Error()
		}
		if st.Client != nil {
			st.Client.Close()
		}
		rows = append(rows, row)
	}
	return rows
}

func healthStatus(err error) string {
	var ue *UnavailableError
	var de *Error
	switch {
	case errors.As(err, &ue):
		return "unavailable"
	case errors.As(err, &de) && de.Code == CodeAPIVersionMismatch:
		return "incompatible"
	}
	return "error"
}
