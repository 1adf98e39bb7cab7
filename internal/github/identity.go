package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Identity returns the login CogWorks acts as: "<app-slug>[bot]" with App
// auth (GitHub names an App's bot account that way), otherwise the token's
// user. An installation token — an App's passed in as a token, or an
// Actions GITHUB_TOKEN — may not read GET /user (403), so it is asked
// through GraphQL's viewer, which every kind of token may read. Only
// comments and labels written by this login are CogWorks's state.
func (c *Client) Identity(ctx context.Context) (string, error) {
	if c.apps != nil {
		app, _, err := c.apps.Apps.Get(ctx, "")
		if err != nil {
			return "", convertError("read the authenticated App", err)
		}
		if app.GetSlug() == "" {
			return "", fmt.Errorf("read the authenticated App: GitHub returned no slug")
		}
		return app.GetSlug() + "[bot]", nil
	}
	u, _, err := c.gh.Users.Get(ctx, "")
	if err == nil && u.GetLogin() != "" {
		return u.GetLogin(), nil
	}
	err = convertError("read the authenticated user", err)
	var apiErr *APIError
	forbidden := errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden
	if err != nil && !forbidden {
		return "", err
	}
	login, verr := c.viewerLogin(ctx)
	if verr != nil {
		// The fallback's own failure first: an outage there is what a
		// retry cures (errors.As finds it before the 403).
		return "", errors.Join(verr, err)
	}
	return login, nil
}

// viewerLogin asks GraphQL { viewer { login } }.
func (c *Client) viewerLogin(ctx context.Context) (string, error) {
	req, err := c.gh.NewRequest(http.MethodPost, graphQLURL(c.gh.BaseURL.String()), map[string]string{"query": "query { viewer { login } }"})
	if err != nil {
		return "", fmt.Errorf("read the GraphQL viewer: %w", err)
	}
	var out struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return "", convertError("read the GraphQL viewer", err)
	}
	if len(out.Errors) > 0 {
		return "", fmt.Errorf("read the GraphQL viewer: %s", out.Errors[0].Message)
	}
	if out.Data.Viewer.Login == "" {
		return "", fmt.Errorf("read the GraphQL viewer: GitHub returned no login")
	}
	return out.Data.Viewer.Login, nil
}

// graphQLURL is the GraphQL endpoint beside a REST base URL:
// https://api.github.com/graphql, or https://HOST/api/graphql for
// GitHub Enterprise (whose REST API is at /api/v3/).
func graphQLURL(restBase string) string {
	if base, ok := strings.CutSuffix(restBase, "/api/v3/"); ok {
		return base + "/api/graphql"
	}
	return strings.TrimSuffix(restBase, "/") + "/graphql"
}
