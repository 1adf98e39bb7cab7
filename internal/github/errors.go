package github

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// RateLimitError is returned when GitHub rate-limits a request (403 or 429)
// and the wait it asks for exceeds the client's MaxDelay, or retries are
// exhausted.
type RateLimitError struct {
	Method    string
	Path      string
	Status    int
	Secondary bool          // secondary (abuse) limit rather than the hourly quota
	Wait      time.Duration // how long GitHub asked to wait
	Reset     time.Time     // X-RateLimit-Reset, when known
}

// Error implements error.
func (e *RateLimitError) Error() string {
	kind := "rate limit"
	if e.Secondary {
		kind = "secondary rate limit"
	}
	msg := fmt.Sprintf("github %s %s: %d %s exceeded, retry after %s", e.Method, e.Path, e.Status, kind, e.Wait.Round(time.Second))
	if !e.Reset.IsZero() {
		msg += fmt.Sprintf(" (quota resets at %s)", e.Reset.UTC().Format(time.RFC3339))
	}
	return msg
}

// Transient reports true: the request may succeed after Wait.
func (e *RateLimitError) Transient() bool { return true }

// PathError rejects a repository path CogWorks may not write: empty,
// absolute, or escaping the repository with "..".
type PathError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *PathError) Error() string {
	return fmt.Sprintf("refuse to write repository path %q: %s", e.Path, e.Reason)
}

// NetworkError is a request that got no answer from GitHub (connection
// refused or reset, DNS, TLS, a timeout). The write may or may not have
// landed; a later invocation may succeed.
type NetworkError struct{ Err error }

// Error implements error.
func (e *NetworkError) Error() string { return "network: " + e.Err.Error() }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *NetworkError) Unwrap() error { return e.Err }

// Transient reports true: GitHub may answer later.
func (e *NetworkError) Transient() bool { return true }

// convertError maps go-github errors onto this package's typed errors and
// wraps the result with what was being done.
func convertError(what string, err error) error {
	if err == nil {
		return nil
	}
	var (
		errResp *gh.ErrorResponse
		rlErr   *gh.RateLimitError
		abuse   *gh.AbuseRateLimitError
	)
	switch {
	case errors.As(err, &rlErr):
		e := &RateLimitError{Status: http.StatusForbidden, Reset: rlErr.Rate.Reset.Time}
		e.Method, e.Path = requestCoordinates(rlErr.Response)
		e.Wait = max(time.Until(e.Reset), 0)
		err = e
	case errors.As(err, &abuse):
		e := &RateLimitError{Status: http.StatusForbidden, Secondary: true}
		e.Method, e.Path = requestCoordinates(abuse.Response)
		if abuse.RetryAfter != nil {
			e.Wait = *abuse.RetryAfter
		}
		err = e
	case isNetwork(err):
		err = &NetworkError{Err: err}
	case errors.As(err, &errResp) && errResp.Response != nil && isRedirect(errResp.Response.StatusCode):
		e := &MovedError{Status: errResp.Response.StatusCode, Location: errResp.Response.Header.Get("Location")}
		e.Method, e.Path = requestCoordinates(errResp.Response)
		err = e
	case errors.As(err, &errResp):
		e := &APIError{Message: errorMessage(errResp)}
		e.Method, e.Path = requestCoordinates(errResp.Response)
		if errResp.Response != nil {
			e.Status = errResp.Response.StatusCode
		}
		err = e
		if isRulesetRefusal(e.Status, e.Message) {
			err = &RulesetError{Method: e.Method, Path: e.Path, Status: e.Status, Message: e.Message}
		}
	}
	return fmt.Errorf("%s: %w", what, err)
}

func requestCoordinates(resp *http.Response) (method, path string) {
	if resp == nil || resp.Request == nil {
		return "", ""
	}
	return resp.Request.Method, resp.Request.URL.Path
}

// errorMessage joins GitHub's message with its per-field details, e.g.
// "Validation Failed: A pull request already exists for o:b.".
func errorMessage(e *gh.ErrorResponse) string {
	parts := []string{}
	for _, fe := range e.Errors {
		switch {
		case fe.Message != "":
			parts = append(parts, fe.Message)
		case fe.Code != "":
			parts = append(parts, fmt.Sprintf("%s %s.%s", fe.Code, fe.Resource, fe.Field))
		}
	}
	msg := e.Message
	if len(parts) > 0 {
		msg += ": " + strings.Join(parts, "; ")
	}
	return msg
}

// isNetwork reports a transport failure (no HTTP answer), not a
// cancellation, which the caller classifies itself.
func isNetwork(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue)
}

// MovedError is a write GitHub redirected — a transferred issue answers
// 301 with its new location. The write did not happen; CogWorks reports
// it rather than repeat it elsewhere on its own.
type MovedError struct {
	Method, Path string
	Status       int
	Location     string
}

// Error implements error.
func (e *MovedError) Error() string {
	return fmt.Sprintf("github %s %s: %d moved to %s (the issue was transferred or the repository renamed; the write was not made)",
		e.Method, e.Path, e.Status, e.Location)
}

func isRedirect(status int) bool {
	return status == http.StatusMovedPermanently || status == http.StatusFound ||
		status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect
}
