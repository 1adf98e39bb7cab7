package domain

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Default per-method timeouts (docs/spec.md §10).
const (
	DefaultTimeout         = 5 * time.Minute
	DefaultSimulateTimeout = 10 * time.Minute
)

// maxResponseBytes bounds how much of a response body the client reads.
const maxResponseBytes = 64 << 20

// Timeouts bounds each call. A method listed in PerMethod uses that value;
// simulate otherwise uses Simulate and every other method Default.
type Timeouts struct {
	Default   time.Duration
	Simulate  time.Duration
	PerMethod map[string]time.Duration
}

// DefaultTimeouts returns simulate 10 minutes, everything else 5 minutes.
func DefaultTimeouts() Timeouts {
	return Timeouts{Default: DefaultTimeout, Simulate: DefaultSimulateTimeout}
}

// For returns the timeout applied to method.
func (t Timeouts) For(method string) time.Duration {
	if d, ok := t.PerMethod[method]; ok && d > 0 {
		return d
	}
	if method == MethodSimulate && t.Simulate > 0 {
		return t.Simulate
	}
	if t.Default > 0 {
		return t.Default
	}
	return DefaultTimeout
}

type clientOptions struct {
	timeouts   Timeouts
	apiVersion string
	schemas    *Schemas
}

// Option configures a Client.
type Option func(*clientOptions)

// WithTimeouts replaces the per-method timeouts.
func WithTimeouts(t Timeouts) Option { return func(o *clientOptions) { o.timeouts = t } }

// WithMethodTimeout overrides the timeout of one method.
func WithMethodTimeout(method string, d time.Duration) Option {
	return func(o *clientOptions) {
		per := make(map[string]time.Duration, len(o.timeouts.PerMethod)+1)
		for k, v := range o.timeouts.PerMethod {
			per[k] = v
		}
		per[method] = d
		o.timeouts.PerMethod = per
	}
}

// WithAPIVersion sets the Extension API version the client requires
// (default APIVersion).
func WithAPIVersion(v string) Option { return func(o *clientOptions) { o.apiVersion = v } }

// WithSchemas shares already compiled schemas between clients.
func WithSchemas(s *Schemas) Option { return func(o *clientOptions) { o.schemas = s } }

// Client talks to one domain service. It is safe for concurrent use.
type Client struct {
	cfg     ServiceConfig
	baseURL string
	http    *http.Client
	opts    clientOptions

	mu        sync.Mutex
	handshake *HandshakeResult
}

// NewClient builds a client for the service described by cfg. No connection
// is made until the first call.
func NewClient(cfg ServiceConfig, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := clientOptions{timeouts: DefaultTimeouts(), apiVersion: APIVersion}
	for _, opt := range opts {
		opt(&o)
	}
	if _, err := Major(o.apiVersion); err != nil {
		return nil, fmt.Errorf("client for %q: %w", cfg.Name, err)
	}
	if o.schemas == nil {
		s, err := CompileSchemas()
		if err != nil {
			return nil, fmt.Errorf("client for %q: %w", cfg.Name, err)
		}
		o.schemas = s
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second}
	base := cfg.baseURL()
	if cfg.Transport == TransportUnix {
		path := cfg.Endpoint
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}
	}
	return &Client{cfg: cfg, baseURL: base, http: &http.Client{Transport: tr}, opts: o}, nil
}

// Name is the service's registered name.
func (c *Client) Name() string { return c.cfg.Name }

// Config returns the registration the client was built from.
func (c *Client) Config() ServiceConfig { return c.cfg }

// Schemas returns the compiled schemas the client validates against.
func (c *Client) Schemas() *Schemas { return c.opts.schemas }

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Health checks liveness with GET /extension/v1/health.
func (c *Client) Health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.timeouts.For("health"))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+HealthPath, nil)
	if err != nil {
		return fmt.Errorf("health %q: %w", c.cfg.Name, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, "health", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	if resp.StatusCode != http.StatusOK {
		return &ProtocolError{Service: c.cfg.Name, Method: "health", Err: fmt.Errorf("HTTP status %d", resp.StatusCode)}
	}
	return nil
}

// Handshake asks the service to describe itself, checks that it speaks the
// client's MAJOR API version (ASSERT-EXT-003) and caches the result for
// capability checks.
func (c *Client) Handshake(ctx context.Context) (HandshakeResult, error) {
	var hs HandshakeResult
	if err := c.roundTrip(ctx, MethodHandshake, Request{}, nil, &hs); err != nil {
		return HandshakeResult{}, err
	}
	if err := CompatibleAPI(c.opts.apiVersion, hs.APIVersion); err != nil {
		return HandshakeResult{}, &Error{
			Code:    CodeAPIVersionMismatch,
			Message: fmt.Sprintf("service %q speaks Extension API %s, CogWorks requires %s: %v", c.cfg.Name, hs.APIVersion, c.opts.apiVersion, err),
			Service: c.cfg.Name, Method: MethodHandshake,
		}
	}
	c.mu.Lock()
	c.handshake = &hs
	c.mu.Unlock()
	return hs, nil
}

// Described returns the cached handshake, if one succeeded.
func (c *Client) Described() (HandshakeResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handshake == nil {
		return HandshakeResult{}, false
	}
	return *c.handshake, true
}

func (c *Client) ensureHandshake(ctx context.Context) (HandshakeResult, error) {
	if hs, ok := c.Described(); ok {
		return hs, nil
	}
	return c.Handshake(ctx)
}

// Call invokes method with the request envelope req (its api_version,
// request_id and method are filled in), params marshalled into the envelope
// and the validated result decoded into out (which may be nil). The
// handshake is performed first if it has not been; a method outside the
// declared capabilities fails with unsupported_method without a request.
func (c *Client) Call(ctx context.Context, method string, req Request, params, out any) error {
	if method != MethodHandshake {
		hs, err := c.ensureHandshake(ctx)
		if err != nil {
			return err
		}
		if !hs.Supports(method) {
			return &Error{
				Code:    CodeUnsupportedMethod,
				Message: fmt.Sprintf("method %q is not among the service's capabilities %v", method, hs.Capabilities),
				Service: c.cfg.Name, Method: method,
			}
		}
	}
	return c.roundTrip(ctx, method, req, params, out)
}

func (c *Client) roundTrip(ctx context.Context, method string, req Request, params, out any) error {
	req.APIVersion = c.opts.apiVersion
	req.Method = method
	req.RequestID = newRequestID()
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("marshal %s params for %q: %w", method, c.cfg.Name, err)
		}
		req.Params = raw
	}
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("marshal %s request for %q: %w", method, c.cfg.Name, err)
	}
	resp, err := c.PostRaw(ctx, method, body)
	if err != nil {
		return err
	}
	if resp.RequestID != req.RequestID {
		return &ProtocolError{Service: c.cfg.Name, Method: method,
			Err: fmt.Errorf("request_id %q does not match the request's %q", resp.RequestID, req.RequestID)}
	}
	if resp.Status == StatusError {
		return c.serviceError(method, resp.Error)
	}
	if len(resp.Result) == 0 {
		return &ProtocolError{Service: c.cfg.Name, Method: method, Err: errors.New("status ok without result")}
	}
	if name := ResultSchema(method); c.opts.schemas.Has(name) {
		if err := c.opts.schemas.Validate(name, resp.Result); err != nil {
			return &ProtocolError{Service: c.cfg.Name, Method: method, Err: err}
		}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return &ProtocolError{Service: c.cfg.Name, Method: method, Err: fmt.Errorf("decode result: %w", err)}
	}
	return nil
}

func (c *Client) serviceError(method string, body *ErrorBody) error {
	if body == nil {
		return &ProtocolError{Service: c.cfg.Name, Method: method, Err: errors.New("status error without error member")}
	}
	return &Error{Code: body.Code, Message: body.Message, Recoverable: body.Recoverable, Service: c.cfg.Name, Method: method}
}

// PostRaw sends body as-is to POST /extension/v1/<method> and returns the
// response envelope after validating it against the response schema. It
// neither checks capabilities nor interprets the status; conformance tests
// use it to send malformed requests.
func (c *Client) PostRaw(ctx context.Context, method string, body []byte) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.timeouts.For(method))
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+PathPrefix+method, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("build %s request for %q: %w", method, c.cfg.Name, err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hresp, err := c.http.Do(hreq)
	if err != nil {
		return Response{}, c.transportError(ctx, method, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	if err != nil {
		return Response{}, c.transportError(ctx, method, err)
	}
	if err := c.opts.schemas.Validate(SchemaResponse, data); err != nil {
		return Response{}, &ProtocolError{Service: c.cfg.Name, Method: method,
			Err: fmt.Errorf("HTTP %d: %w", hresp.StatusCode, err)}
	}
	var resp Response
	if err := json.Unmarshal(data, &resp); err != nil {
		return Response{}, &ProtocolError{Service: c.cfg.Name, Method: method, Err: fmt.Errorf("decode envelope: %w", err)}
	}
	return resp, nil
}

// transportError classifies a failed HTTP exchange: the per-call deadline
// ⇒ timeout, a failed dial ⇒ *UnavailableError, the caller's cancellation
// ⇒ its context error.
func (c *Client) transportError(ctx context.Context, method string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Recoverable: true, Service: c.cfg.Name, Method: method,
			Message: fmt.Sprintf("no answer from %s within %s", c.cfg.describe(), c.opts.timeouts.For(method))}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("call %q %s: %w", c.cfg.Name, method, ctx.Err())
	}
	return &UnavailableError{Service: c.cfg.Name, Endpoint: c.cfg.describe(), Err: err}
}

// Validate runs the validate method.
func (c *Client) Validate(ctx context.Context, req Request) (DiagnosticsResult, error) {
	var out DiagnosticsResult
	err := c.Call(ctx, MethodValidate, req, nil, &out)
	return out, err
}

// Normalise runs the normalise method.
func (c *Client) Normalise(ctx context.Context, req Request) (NormaliseResult, error) {
	var out NormaliseResult
	err := c.Call(ctx, MethodNormalise, req, nil, &out)
	return out, err
}

// ReviewRules runs the review_rules method.
func (c *Client) ReviewRules(ctx context.Context, req Request, p ReviewRulesParams) (DiagnosticsResult, error) {
	var out DiagnosticsResult
	err := c.Call(ctx, MethodReviewRules, req, p, &out)
	return out, err
}

// Simulate runs the simulate method.
func (c *Client) Simulate(ctx context.Context, req Request, p SimulateParams) (SimulateResult, error) {
	var out SimulateResult
	err := c.Call(ctx, MethodSimulate, req, p, &out)
	return out, err
}

// ValidateDeps runs the validate_deps method.
func (c *Client) ValidateDeps(ctx context.Context, req Request) (DiagnosticsResult, error) {
	var out DiagnosticsResult
	err := c.Call(ctx, MethodValidateDeps, req, nil, &out)
	return out, err
}

// ExtractInterfaces runs the extract_interfaces method.
func (c *Client) ExtractInterfaces(ctx context.Context, req Request) (ExtractResult, error) {
	var out ExtractResult
	err := c.Call(ctx, MethodExtractInterfaces, req, nil, &out)
	return out, err
}

// DependencyGraph runs the dependency_graph method.
func (c *Client) DependencyGraph(ctx context.Context, req Request) (DependencyGraphResult, error) {
	var out DependencyGraphResult
	err := c.Call(ctx, MethodDependencyGraph, req, nil, &out)
	return out, err
}

// RepoMap runs the repo_map method (Extension API 1.1.0).
func (c *Client) RepoMap(ctx context.Context, req Request) (RepoMapResult, error) {
	var out RepoMapResult
	err := c.Call(ctx, MethodRepoMap, req, nil, &out)
	return out, err
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
