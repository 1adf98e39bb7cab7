package github

import (
	"context"
	"fmt"
)

// Identity returns the login CogWorks acts as: "<app-slug>[bot]" with App
// auth (GitHub names an App's bot account that way), otherwise the token's
// user. Only comments and labels written by this login are CogWorks's
// state. An Actions GITHUB_TOKEN may not read /user; the caller then falls
// back to "github-actions[bot]" (see IdentityFromEnv in the cli).
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
	if err != nil {
		return "", convertError("read the authenticated user", err)
	}
	if u.GetLogin() == "" {
		return "", fmt.Errorf("read the authenticated user: GitHub returned no login")
	}
	return u.GetLogin(), nil
}
