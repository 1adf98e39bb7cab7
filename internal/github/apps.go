package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v62/github"
)

// AppClients creates one Client per App installation and caches it, so a
// server that receives events from many installations reuses each
// installation's token until it expires (ghinstallation refreshes it). It
// is safe for concurrent use.
type AppClients struct {
	base  Options
	appID int64
	key   []byte

	mu      sync.Mutex
	clients map[int64]*Client
}

// NewAppClients validates base (whose App must be set; its InstallationID
// is ignored) and returns the creator. No request is sent.
func NewAppClients(base Options) (*AppClients, error) {
	if base.App == nil {
		return nil, errors.New("github App clients: App auth (app id and private key) is required")
	}
	if base.Token != "" {
		return nil, errors.New("github App clients: set App auth, not a token")
	}
	probe := base
	app := *base.App
	app.InstallationID = 1 // any positive id: only the shared fields are checked here
	probe.App = &app
	if err := probe.Validate(); err != nil {
		return nil, err
	}
	if _, err := ghinstallation.NewAppsTransport(http.DefaultTransport, base.App.AppID, base.App.PrivateKey); err != nil {
		return nil, fmt.Errorf("github App %d auth: %w", base.App.AppID, err)
	}
	return &AppClients{base: base, appID: base.App.AppID, key: base.App.PrivateKey, clients: map[int64]*Client{}}, nil
}

// Installation returns the client acting as installation id.
func (a *AppClients) Installation(ctx context.Context, id int64) (*Client, error) {
	if id <= 0 {
		return nil, fmt.Errorf("github App installation id must be positive, got %d", id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.clients[id]; ok {
		return c, nil
	}
	opts := a.base
	opts.App = &AppAuth{AppID: a.appID, PrivateKey: a.key, InstallationID: id}
	c, err := New(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("client for installation %d: %w", id, err)
	}
	a.clients[id] = c
	return c, nil
}

// Forget drops a cached installation client (the App was uninstalled or
// suspended).
func (a *AppClients) Forget(id int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.clients, id)
}

// Cached reports how many installation clients are cached.
func (a *AppClients) Cached() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.clients)
}

// CheckApp authenticates as the App itself (a JWT signed with the private
// key) and reads GET /app: it proves the key loads and GitHub accepts it.
// It returns the App's slug.
func (a *AppClients) CheckApp(ctx context.Context) (string, error) {
	client, err := a.appClient()
	if err != nil {
		return "", err
	}
	app, _, err := client.Apps.Get(ctx, "")
	if err != nil {
		return "", convertError(fmt.Sprintf("get App %d", a.appID), err)
	}
	return app.GetSlug(), nil
}

// appClient is a go-github client authenticated as the App itself (a JWT
// signed with the private key), for the /app endpoints.
func (a *AppClients) appClient() (*gh.Client, error) {
	base := a.base.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	tr, err := ghinstallation.NewAppsTransport(base, a.appID, a.key)
	if err != nil {
		return nil, fmt.Errorf("github App %d auth: %w", a.appID, err)
	}
	client := gh.NewClient(&http.Client{Transport: tr, Timeout: a.base.Timeout})
	if a.base.BaseURL != "" {
		client, err = client.WithEnterpriseURLs(a.base.BaseURL, uploadURL(a.base.BaseURL))
		if err != nil {
			return nil, fmt.Errorf("github base URL: %w", err)
		}
		tr.BaseURL = strings.TrimSuffix(client.BaseURL.String(), "/")
	}
	return client, nil
}

// AppOptionsFromEnv reads App credentials for a server that serves every
// installation: COGWORKS_GITHUB_APP_ID and COGWORKS_GITHUB_APP_PRIVATE_KEY
// are required, COGWORKS_GITHUB_INSTALLATION_ID is not read, and the API
// URL is taken as in OptionsFromEnv.
func AppOptionsFromEnv(getenv func(string) string) (Options, error) {
	raw := strings.TrimSpace(getenv(EnvAppID))
	if raw == "" {
		return Options{}, fmt.Errorf("%s is required for App mode", EnvAppID)
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return Options{}, fmt.Errorf("%s: want a positive integer, got %q", EnvAppID, raw)
	}
	key, err := privateKeyFromEnv(getenv(EnvAppPrivateKey))
	if err != nil {
		return Options{}, err
	}
	base, err := apiURLFromEnv(getenv)
	if err != nil {
		return Options{}, err
	}
	opts := Options{BaseURL: base}
	opts.App = &AppAuth{AppID: id, PrivateKey: key}
	return opts, nil
}
