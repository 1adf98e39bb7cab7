package metrics

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/push"
	"github.com/prometheus/common/expfmt"
)

// Transport returns an http.RoundTripper that counts every request it
// forwards to next (http.DefaultTransport when nil) by method and status
// and tracks X-RateLimit-Remaining. Install it as github.Options.Transport:
// it then sits below the client's retries and cache, so every attempt on
// the wire is counted once.
func (m *Metrics) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	if m == nil {
		return next
	}
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil {
			m.githubRequest(req.Method, 0, err, nil)
			return resp, err
		}
		m.githubRequest(req.Method, resp.StatusCode, nil, resp.Header)
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// WriteFile writes every metric in the text exposition format to path, as
// the node-exporter textfile collector reads it: into a temporary file in
// the same directory, then renamed over path, so a reader never sees a
// partial file.
func (m *Metrics) WriteFile(path string) error {
	families, err := m.Registry.Gather()
	if err != nil {
		return fmt.Errorf("gather metrics: %w", err)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	enc := expfmt.NewEncoder(tmp, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			tmp.Close()
			return fmt.Errorf("encode metrics %s: %w", path, err)
		}
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write metrics %s: %w", path, err)
	}
	return nil
}

// Push sends every metric to the Pushgateway at url under job, replacing
// the job's previous group (PUT semantics), so a cron run's figures are
// those of its last run.
func (m *Metrics) Push(ctx context.Context, url, job string, grouping map[string]string) error {
	p := push.New(url, job).Gatherer(m.Registry)
	for k, v := range grouping {
		p = p.Grouping(k, v)
	}
	if err := p.PushContext(ctx); err != nil {
		return fmt.Errorf("push metrics to %s: %w", url, err)
	}
	return nil
}
