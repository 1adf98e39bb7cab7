// Package serve is the serve command: GitHub App webhooks for every
// installed repository, with delivery recovery and per-installation
// isolation.
package serve
