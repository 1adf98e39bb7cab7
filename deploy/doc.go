// Package deploy holds the deployment examples for `cogworks serve` (a
// Kubernetes Deployment with its sandboxed domain-go container, Service,
// ConfigMap, NetworkPolicy and Secret example under kubernetes/;
// docker-compose.yml with domain-services.toml; domain-go.Dockerfile for
// the domain service's image) and the tests that validate them: they
// decode each manifest strictly into the k8s.io/api types, so an unknown
// or misspelt field fails, and check what the server relies on (replicas,
// image, probes, non-root, secret references, service selector) and what
// confines the domain service (no secret, only the socket shared, locked
// down security context, own limits, egress policy).
package deploy
