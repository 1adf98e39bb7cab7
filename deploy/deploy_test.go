package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

const image = "ghcr.io/cogworks/cogworks"

// manifests decodes every document of kubernetes/*.yaml strictly.
func manifests(t *testing.T) (deps []appsv1.Deployment, svcs []corev1.Service, secrets []corev1.Secret) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, doc := range bytes.Split(data, []byte("\n---")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			require.NoError(t, sigsyaml.Unmarshal(doc, &meta), "%s doc %d", f, i)
			switch meta.APIVersion + "/" + meta.Kind {
			case "apps/v1/Deployment":
				var d appsv1.Deployment
				require.NoError(t, sigsyaml.UnmarshalStrict(doc, &d), "%s: unknown or malformed field", f)
				deps = append(deps, d)
			case "v1/Service":
				var s corev1.Service
				require.NoError(t, sigsyaml.UnmarshalStrict(doc, &s), "%s: unknown or malformed field", f)
				svcs = append(svcs, s)
			case "v1/Secret":
				var s corev1.Secret
				require.NoError(t, sigsyaml.UnmarshalStrict(doc, &s), "%s: unknown or malformed field", f)
				secrets = append(secrets, s)
			default:
				t.Fatalf("%s doc %d: unexpected %s %s", f, i, meta.APIVersion, meta.Kind)
			}
		}
	}
	return deps, svcs, secrets
}

func TestKubernetesManifests(t *testing.T) {
	deps, svcs, secrets := manifests(t)
	require.Len(t, deps, 1)
	require.Len(t, svcs, 1)
	require.Len(t, secrets, 1)
	d, svc, secret := deps[0], svcs[0], secrets[0]

	require.NotNil(t, d.Spec.Replicas)
	assert.EqualValues(t, 2, *d.Spec.Replicas)
	require.NotNil(t, d.Spec.Selector)
	assert.Equal(t, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels, "the selector picks the pods")
	for k, v := range svc.Spec.Selector {
		assert.Equal(t, v, d.Spec.Template.Labels[k], "the Service selects the pods by %s", k)
	}

	pod := d.Spec.Template.Spec
	require.NotNil(t, pod.SecurityContext)
	require.NotNil(t, pod.SecurityContext.RunAsNonRoot)
	assert.True(t, *pod.SecurityContext.RunAsNonRoot)
	require.NotNil(t, pod.SecurityContext.RunAsUser)
	assert.NotZero(t, *pod.SecurityContext.RunAsUser)
	require.NotNil(t, pod.TerminationGracePeriodSeconds)

	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.True(t, strings.HasPrefix(c.Image, image+":"), "image %s", c.Image)
	assert.Equal(t, "serve", c.Args[0])
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, p := range svc.Spec.Ports {
		assert.Contains(t, ports, p.TargetPort.String(), "service target port names a container port")
	}
	require.NotNil(t, c.LivenessProbe)
	require.NotNil(t, c.LivenessProbe.HTTPGet)
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.ReadinessProbe.HTTPGet)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.NotNil(t, c.SecurityContext)
	require.NotNil(t, c.SecurityContext.AllowPrivilegeEscalation)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)

	// Every secret the pod reads exists in the Secret's keys; nothing
	// secret is inlined.
	keys := map[string]bool{}
	for k := range secret.StringData {
		keys[k] = true
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			assert.Equal(t, secret.Name, e.ValueFrom.SecretKeyRef.Name, e.Name)
			assert.True(t, keys[e.ValueFrom.SecretKeyRef.Key], "%s reads key %s", e.Name, e.ValueFrom.SecretKeyRef.Key)
		}
	}
	for _, name := range []string{"COGWORKS_GITHUB_APP_ID", "COGWORKS_WEBHOOK_SECRET", "COGWORKS_LLM_API_KEY"} {
		require.Contains(t, env, name)
		assert.Empty(t, env[name].Value, "%s comes from the Secret", name)
	}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			assert.Equal(t, secret.Name, v.Secret.SecretName)
			for _, it := range v.Secret.Items {
				assert.True(t, keys[it.Key], "volume reads key %s", it.Key)
			}
		}
	}
}

// compose is the subset of the Compose specification the example uses;
// decoding with KnownFields rejects anything else.
type compose struct {
	Services map[string]struct {
		Image           string            `yaml:"image"`
		Command         []string          `yaml:"command"`
		User            string            `yaml:"user"`
		ReadOnly        bool              `yaml:"read_only"`
		Restart         string            `yaml:"restart"`
		StopGracePeriod string            `yaml:"stop_grace_period"`
		Ports           []string          `yaml:"ports"`
		Environment     map[string]string `yaml:"environment"`
		Secrets         []string          `yaml:"secrets"`
		Volumes         []string          `yaml:"volumes"`
		Tmpfs           []string          `yaml:"tmpfs"`
	} `yaml:"services"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
	Volumes map[string]struct{} `yaml:"volumes"`
}

func TestDockerCompose(t *testing.T) {
	data, err := os.ReadFile("docker-compose.yml")
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c compose
	require.NoError(t, dec.Decode(&c))
	svc, ok := c.Services["cogworks"]
	require.True(t, ok)
	assert.True(t, strings.HasPrefix(svc.Image, image+":"))
	assert.Equal(t, "serve", svc.Command[0])
	assert.NotEmpty(t, svc.User)
	assert.NotEqual(t, "0", strings.Split(svc.User, ":")[0], "not root")
	for _, s := range svc.Secrets {
		assert.Contains(t, c.Secrets, s)
	}
	assert.Contains(t, svc.Environment, "COGWORKS_WEBHOOK_SECRET")
	assert.Contains(t, svc.Environment["COGWORKS_GITHUB_APP_PRIVATE_KEY"], "/run/secrets/")
}
