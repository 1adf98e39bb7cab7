package domain

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// DefaultServicesFile is the registration file, relative to the workspace.
const DefaultServicesFile = ".cogworks/services.toml"

// Transports a service can be reached over.
const (
	TransportUnix = "unix"
	TransportHTTP = "http"
)

// ServiceConfig registers one domain service. Capabilities are discovered by
// handshake, never configured.
type ServiceConfig struct {
	Name string `toml:"name"`
	// Transport is "unix" (Endpoint is a socket path) or "http" (Endpoint is
	// http://host:port or host:port).
	Transport string `toml:"transport"`
	Endpoint  string `toml:"endpoint"`
	// Domain optionally names the service's domain so that warnings can name
	// it even when the service cannot be reached; the handshake's domain
	// takes precedence.
	Domain string `toml:"domain"`
}

// Validate checks the registration; errors name the offending field.
func (c ServiceConfig) Validate() error {
	if strings.TrimSpace(c.Name) == "" {
		return errors.New("service: field name is required")
	}
	switch c.Transport {
	case TransportUnix:
		if c.Endpoint == "" {
			return fmt.Errorf("service %q: field endpoint is required (a socket path)", c.Name)
		}
	case TransportHTTP:
		if c.Endpoint == "" {
			return fmt.Errorf("service %q: field endpoint is required (http://host:port)", c.Name)
		}
		u, err := url.Parse(c.baseURL())
		if err != nil || u.Host == "" || u.Scheme != "http" {
			return fmt.Errorf("service %q: field endpoint %q is not http://host:port", c.Name, c.Endpoint)
		}
	default:
		return fmt.Errorf("service %q: field transport %q must be %q or %q", c.Name, c.Transport, TransportUnix, TransportHTTP)
	}
	return nil
}

// baseURL is the URL prefix requests are sent to. Over a unix socket the
// host is a placeholder; the dialer ignores it.
func (c ServiceConfig) baseURL() string {
	if c.Transport == TransportUnix {
		return "http://unix"
	}
	if strings.Contains(c.Endpoint, "://") {
		return strings.TrimSuffix(c.Endpoint, "/")
	}
	return "http://" + strings.TrimSuffix(c.Endpoint, "/")
}

// describe renders the endpoint for messages, e.g. "unix:/tmp/go.sock".
func (c ServiceConfig) describe() string {
	if c.Transport == TransportUnix {
		return "unix:" + c.Endpoint
	}
	return c.baseURL()
}

// Describe renders the endpoint for messages, e.g. "unix:/tmp/go.sock".
func (c ServiceConfig) Describe() string { return c.describe() }

// ServicesPath returns the registration file to load: override (the value of
// COGWORKS_DOMAIN_SERVICES_CONFIG, read by the caller) when set, otherwise
// .cogworks/services.toml under workspace.
func ServicesPath(workspace, override string) string {
	if override != "" {
		return override
	}
	return filepath.Join(workspace, DefaultServicesFile)
}

type servicesFile struct {
	Services []ServiceConfig `toml:"services"`
}

// LoadServices reads and validates a services.toml. Unknown keys, missing or
// bad fields and duplicate names are errors naming the file and field. A
// missing file is an error wrapping fs.ErrNotExist.
func LoadServices(path string) ([]ServiceConfig, error) {
	var f servicesFile
	md, err := toml.DecodeFile(path, &f)
	if err != nil {
		return nil, fmt.Errorf("load services %s: %w", path, err)
	}
	if undec := md.Undecoded(); len(undec) > 0 {
		keys := make([]string, len(undec))
		for i, k := range undec {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("load services %s: unknown keys %s", path, strings.Join(keys, ", "))
	}
	seen := make(map[string]bool)
	for i, s := range f.Services {
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("load services %s: services[%d]: %w", path, i, err)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("load services %s: services[%d]: field name %q is a duplicate", path, i, s.Name)
		}
		seen[s.Name] = true
	}
	return f.Services, nil
}
