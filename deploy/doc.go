// Package deploy holds the deployment examples for `cogworks serve` (a
// Kubernetes Deployment, Service and Secret example under kubernetes/, and
// docker-compose.yml) and the test that validates them: it decodes each
// manifest strictly into the k8s.io/api types, so an unknown or misspelt
// field fails, and checks what the server relies on (replicas, image,
// probes, non-root, secret references, service selector).
package deploy
