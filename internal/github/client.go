package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v62/github"
	// ghinstallation's option types are go-github v88's.
	ghtoken "github.com/google/go-github/v88/github"

	"github.com/cogworks/cogworks/internal/retry"
	"github.com/cogworks/cogworks/internal/secrets"
)

// AppAuth authenticates as a GitHub App installation.
type AppAuth struct {
	AppID          int64
	PrivateKey     []byte // PEM
	InstallationID int64
}

// Options configures New. The zero value talks to api.github.com
// unauthenticated with the default manifest and retry policy.
type Options struct {
	// BaseURL is a GitHub Enterprise-style API URL, e.g.
	// http://127.0.0.1:8080/api/v3/; empty means https://api.github.com/.
	BaseURL string
	// Token is a personal access or Actions token. Mutually exclusive with App.
	Token string
	// App, when set, authenticates as an App installation.
	App *AppAuth
	// UserAgent defaults to "cogworks".
	UserAgent string
	// Timeout bounds each HTTP attempt (default 30s); retry waits are not
	// counted against it.
	Timeout time.Duration
	// Transport is the base round tripper (default: a clone of
	// http.DefaultTransport).
	Transport http.RoundTripper
	// Logger receives retry and rate-limit notices (default: discard).
	Logger *slog.Logger
	// Manifest defaults to DefaultManifest(). It must deny what CogWorks
	// never does (see Manifest.Validate).
	Manifest *Manifest
	// Retry configures retries and the longest rate-limit wait.
	Retry RetryPolicy
	// Sleep waits between retries (default: a context-aware timer); tests
	// inject a recorder.
	Sleep SleepFunc
	// CacheSize is the number of ETag-cached GET responses (default 256;
	// negative disables the cache).
	CacheSize int
	// Redactor removes secrets from everything the client writes:
	// comment, issue, PR and review text, commit messages and file
	// contents. nil removes token shapes only (secrets.RedactShapes).
	Redactor Redactor
}

// Redactor removes secrets from text (a *secrets.Redactor).
type Redactor interface {
	Redact(string) string
}

// Validate reports configuration mistakes. It never includes secrets.
func (o Options) Validate() error {
	if o.Token != "" && o.App != nil {
		return errors.New("github options: set either a token or App auth, not both")
	}
	if o.App != nil {
		if o.App.AppID <= 0 {
			return fmt.Errorf("github options: App ID must be positive, got %d", o.App.AppID)
		}
		if o.App.InstallationID <= 0 {
			return fmt.Errorf("github options: App installation ID must be positive, got %d", o.App.InstallationID)
		}
		if len(o.App.PrivateKey) == 0 {
			return errors.New("github options: App private key is empty")
		}
	}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("github options: base URL must be an absolute http(s) URL like http://host/api/v3/")
		}
	}
	if o.Manifest != nil {
		if err := o.Manifest.Validate(); err != nil {
			return fmt.Errorf("github options: %w", err)
		}
	}
	return nil
}

// Client is CogWorks's GitHub adapter. It is safe for concurrent use.
type Client struct {
	gh       *gh.Client
	manifest Manifest
	counter  *requestCounter
	tracker  *rateTracker
	repos    repoCache
	files    fileCache
	trees    treeCache
	// apps talks to GitHub as the App itself (a JWT), not as an
	// installation; nil with token auth.
	apps *gh.Client
	// app is the installation transport under App auth (nil for tokens).
	app *ghinstallation.Transport
	// redact is applied to every text the client writes, here at the
	// narrowest waist so that no caller can forget it.
	redact func(string) string
	// download fetches archives from the URLs GitHub redirects to: the
	// base transport, without credentials, the ETag cache or the API's
	// 30-second attempt timeout (a large repository's archive may take
	// longer), and not counted among API requests.
	download *http.Client
	// me is the login the client acts as, asked once (Identity), which
	// CloseObsoleteSubIssue checks an issue's author against.
	me *selfLogin
}

// New builds a Client from opts. ctx is accepted for symmetry with other
// constructors; New itself sends no request (App tokens are fetched on the
// first call).
func New(ctx context.Context, opts Options) (*Client, error) {
	_ = ctx
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	base := opts.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	sleep := opts.Sleep
	if sleep == nil {
		sleep = retry.Sleep
	}
	cacheSize := opts.CacheSize
	if cacheSize == 0 {
		cacheSize = 256
	}

	counter := &requestCounter{next: &attemptTimeout{next: base, timeout: timeout}}
	tracker := &rateTracker{next: counter}
	retry := &retryTransport{next: tracker, policy: opts.Retry.withDefaults(), sleep: sleep, now: time.Now, logger: logger}
	var chain http.RoundTripper = newETagCache(retry, cacheSize)

	var app *ghinstallation.Transport
	if opts.App != nil {
		var err error
		app, err = ghinstallation.New(chain, opts.App.AppID, opts.App.InstallationID, opts.App.PrivateKey)
		if err != nil {
			// ghinstallation's parse errors do not include key material.
			return nil, fmt.Errorf("github App %d auth: %w", opts.App.AppID, err)
		}
		// Without options ghinstallation posts the body "null" (a typed nil
		// it encodes); GitHub's description states an optional object.
		app.InstallationTokenOptions = &ghtoken.InstallationTokenOptions{}
		chain = app
	}

	client := gh.NewClient(&http.Client{Transport: chain, CheckRedirect: refuseWriteRedirects})
	if opts.Token != "" {
		client = client.WithAuthToken(opts.Token)
	}
	if opts.BaseURL != "" {
		var err error
		client, err = client.WithEnterpriseURLs(opts.BaseURL, uploadURL(opts.BaseURL))
		if err != nil {
			return nil, fmt.Errorf("github base URL: %w", err)
		}
	}
	if app != nil && opts.BaseURL != "" {
		app.BaseURL = strings.TrimSuffix(client.BaseURL.String(), "/")
	}
	client.UserAgent = opts.UserAgent
	if client.UserAgent == "" {
		client.UserAgent = "cogworks"
	}

	manifest := DefaultManifest()
	if opts.Manifest != nil {
		manifest = *opts.Manifest
	}
	c := &Client{gh: client, manifest: manifest, counter: counter, tracker: tracker, app: app, redact: secrets.RedactShapes,
		repos: newRepoCache(repoCacheSize, repoInfoTTL), files: newFileCache(fileCacheSize, fileTTL),
		download: &http.Client{Transport: base, Timeout: archiveTimeout}, me: &selfLogin{}}
	if opts.Redactor != nil {
		c.redact = opts.Redactor.Redact
	}
	if opts.App != nil {
		jwt, err := ghinstallation.NewAppsTransport(counter, opts.App.AppID, opts.App.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("github App %d auth: %w", opts.App.AppID, err)
		}
		apps := gh.NewClient(&http.Client{Transport: jwt})
		if opts.BaseURL != "" {
			if apps, err = apps.WithEnterpriseURLs(opts.BaseURL, uploadURL(opts.BaseURL)); err != nil {
				return nil, fmt.Errorf("github base URL: %w", err)
			}
			jwt.BaseURL = strings.TrimSuffix(apps.BaseURL.String(), "/")
		}
		apps.UserAgent = client.UserAgent
		c.apps = apps
	}
	return c, nil
}

// uploadURL derives the Enterprise uploads URL from the API URL.
func uploadURL(base string) string {
	trimmed := strings.TrimSuffix(base, "/")
	if strings.HasSuffix(trimmed, "/api/v3") {
		return strings.TrimSuffix(trimmed, "/api/v3") + "/api/uploads/"
	}
	return base
}

// Requests returns the number of HTTP requests sent so far, including
// retries, conditional requests and App token requests.
func (c *Client) Requests() int64 { return c.counter.n.Load() }

// RateLimit returns the last X-RateLimit-* values seen of the core (REST)
// resource; Limit is 0 until an answer carried them.
func (c *Client) RateLimit() RateLimit { return c.tracker.get() }

// FetchRateLimit asks GitHub for the core window now (GET /rate_limit,
// which does not count against the limit) and remembers it, for when the
// last figures seen may be stale: a window resets, other clients spend it.
func (c *Client) FetchRateLimit(ctx context.Context) (RateLimit, error) {
	limits, _, err := c.gh.RateLimit.Get(ctx)
	if err != nil {
		return RateLimit{}, convertError("get rate limit", err)
	}
	core := limits.GetCore()
	if core == nil {
		return RateLimit{}, fmt.Errorf("get rate limit: the answer has no core resource")
	}
	rl := RateLimit{Limit: core.Limit, Remaining: core.Remaining, Reset: core.Reset.Time, Resource: CoreResource}
	rl.Used = rl.Limit - rl.Remaining
	c.tracker.set(rl)
	return rl, nil
}

// maxPages guards against servers that never stop paginating.
const maxPages = 1000

// paginate calls fetch with successive pages (100 per page) until GitHub
// reports no next page.
func paginate[T any](fetch func(gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	opts := gh.ListOptions{PerPage: 100}
	var all []T
	for range maxPages {
		page, resp, err := fetch(opts)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if resp == nil || resp.NextPage == 0 {
			return all, nil
		}
		if resp.NextPage <= opts.Page {
			return nil, fmt.Errorf("pagination did not advance past page %d", opts.Page)
		}
		opts.Page = resp.NextPage
	}
	return nil, fmt.Errorf("pagination exceeded %d pages", maxPages)
}

// refuseWriteRedirects stops the HTTP client from following a redirect of
// a write. GitHub answers 301 for a moved (transferred) issue, and Go
// repeats a redirected POST, PUT or PATCH as a GET: the write would be
// dropped while the GET's answer read as its success. The 301 then
// surfaces as a *MovedError.
func refuseWriteRedirects(req *http.Request, via []*http.Request) error {
	if len(via) > 0 && via[0].Method != http.MethodGet && via[0].Method != http.MethodHead {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}
