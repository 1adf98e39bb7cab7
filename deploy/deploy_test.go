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
	networkingv1 "k8s.io/api/networking/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cogworks/cogworks/domain"
)

const image = "ghcr.io/cogworks/cogworks"

// objects are the decoded documents of kubernetes/*.yaml.
type objects struct {
	deps     []appsv1.Deployment
	svcs     []corev1.Service
	secrets  []corev1.Secret
	configs  []corev1.ConfigMap
	policies []networkingv1.NetworkPolicy
}

// decodeStrict decodes doc into v, failing on unknown fields.
func decodeStrict[T any](t *testing.T, f string, doc []byte, into *[]T) {
	t.Helper()
	var v T
	require.NoError(t, sigsyaml.UnmarshalStrict(doc, &v), "%s: unknown or malformed field", f)
	*into = append(*into, v)
}

// manifests decodes every document of kubernetes/*.yaml strictly.
func manifests(t *testing.T) objects {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var o objects
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
				decodeStrict(t, f, doc, &o.deps)
			case "v1/Service":
				decodeStrict(t, f, doc, &o.svcs)
			case "v1/Secret":
				decodeStrict(t, f, doc, &o.secrets)
			case "v1/ConfigMap":
				decodeStrict(t, f, doc, &o.configs)
			case "networking.k8s.io/v1/NetworkPolicy":
				decodeStrict(t, f, doc, &o.policies)
			default:
				t.Fatalf("%s doc %d: unexpected %s %s", f, i, meta.APIVersion, meta.Kind)
			}
		}
	}
	return o
}

// container returns the pod's container called name.
func container(t *testing.T, pod corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range pod.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

func TestKubernetesManifests(t *testing.T) {
	o := manifests(t)
	require.Len(t, o.deps, 1)
	require.Len(t, o.svcs, 1)
	require.Len(t, o.secrets, 1)
	d, svc, secret := o.deps[0], o.svcs[0], o.secrets[0]

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

	require.Len(t, pod.Containers, 2, "cogworks and its domain service")
	c := container(t, pod, "cogworks")
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
		CapDrop         []string          `yaml:"cap_drop"`
		SecurityOpt     []string          `yaml:"security_opt"`
		NetworkMode     string            `yaml:"network_mode"`
		MemLimit        string            `yaml:"mem_limit"`
		CPUs            float64           `yaml:"cpus"`
		PidsLimit       int               `yaml:"pids_limit"`
		DependsOn       []string          `yaml:"depends_on"`
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

// secretish names environment variables that carry credentials.
func secretish(name string) bool {
	for _, w := range []string{"SECRET", "TOKEN", "KEY", "PASSWORD", "CREDENTIAL"} {
		if strings.Contains(strings.ToUpper(name), w) {
			return true
		}
	}
	return false
}

// TestDomainServiceContainerIsSandboxed: the container that builds and
// tests generated code holds no secret, shares nothing with cogworks but
// its socket, and runs locked down with its own limits; cogworks uses it
// instead of starting the built-in child.
func TestDomainServiceContainerIsSandboxed(t *testing.T) {
	o := manifests(t)
	require.Len(t, o.deps, 1)
	pod := o.deps[0].Spec.Template.Spec
	require.NotNil(t, pod.AutomountServiceAccountToken)
	assert.False(t, *pod.AutomountServiceAccountToken, "no Kubernetes API token in the pod")
	assert.False(t, pod.ShareProcessNamespace != nil && *pod.ShareProcessNamespace, "containers do not see each other's processes")
	assert.False(t, pod.HostNetwork || pod.HostPID || pod.HostIPC)

	dom, cw := container(t, pod, "domain-go"), container(t, pod, "cogworks")
	assert.True(t, strings.HasPrefix(dom.Image, image+"-domain-go:"), "image %s", dom.Image)
	assert.Equal(t, []string{"serve", "--socket", "/run/cogworks-domain/go.sock"}, dom.Args)
	assert.Empty(t, dom.EnvFrom, "no environment imported wholesale")
	for _, e := range dom.Env {
		assert.Nil(t, e.ValueFrom, "%s: the domain container reads nothing from Secrets or the API", e.Name)
		assert.False(t, secretish(e.Name), "%s looks like a credential", e.Name)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	cwMounts := map[string]bool{}
	for _, m := range cw.VolumeMounts {
		cwMounts[m.Name] = true
	}
	var shared []string
	for _, m := range dom.VolumeMounts {
		v, ok := volumes[m.Name]
		require.True(t, ok, "mount %s names a volume", m.Name)
		assert.Nil(t, v.Secret, "%s: the domain container mounts no Secret", m.Name)
		assert.Nil(t, v.Projected, "%s: no projected (token/secret) volume", m.Name)
		assert.Nil(t, v.HostPath, "%s: no host path", m.Name)
		require.NotNil(t, v.EmptyDir, "%s: the domain container mounts only emptyDirs", m.Name)
		if cwMounts[m.Name] {
			shared = append(shared, m.Name)
		}
	}
	assert.Equal(t, []string{"domain-socket"}, shared, "only the socket's emptyDir is shared with cogworks")

	sc := dom.SecurityContext
	require.NotNil(t, sc)
	require.NotNil(t, sc.RunAsNonRoot)
	assert.True(t, *sc.RunAsNonRoot)
	require.NotNil(t, sc.ReadOnlyRootFilesystem)
	assert.True(t, *sc.ReadOnlyRootFilesystem)
	require.NotNil(t, sc.AllowPrivilegeEscalation)
	assert.False(t, *sc.AllowPrivilegeEscalation)
	require.NotNil(t, sc.Capabilities)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	assert.Empty(t, sc.Capabilities.Add)
	require.NotNil(t, sc.SeccompProfile)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		assert.Contains(t, dom.Resources.Limits, r, "the domain container has its own %s limit", r)
	}

	// cogworks reaches the service through the operator's registration,
	// over the shared socket, with the repository inlined in requests.
	env := map[string]string{}
	for _, e := range cw.Env {
		env[e.Name] = e.Value
	}
	assert.Equal(t, "true", env["COGWORKS_DOMAIN_INLINE_REPO"])
	require.Len(t, o.configs, 1)
	services := o.configs[0].Data["services.toml"]
	assert.Contains(t, services, `endpoint = "/run/cogworks-domain/go.sock"`)
	path := filepath.Join(t.TempDir(), "services.toml")
	require.NoError(t, os.WriteFile(path, []byte(services), 0o600))
	_, err := domain.LoadServices(path)
	require.NoError(t, err, "cogworks accepts the registration")
	var mountedAt string
	for _, m := range cw.VolumeMounts {
		if v := volumes[m.Name]; v.ConfigMap != nil && v.ConfigMap.Name == o.configs[0].Name {
			mountedAt = m.MountPath
		}
	}
	assert.Equal(t, mountedAt+"/services.toml", env["COGWORKS_DOMAIN_SERVICES_CONFIG"])
}

// TestNetworkPolicyLimitsEgress: the pod may resolve names and speak
// HTTPS to public addresses (GitHub, the LLM provider); cluster-internal
// and link-local addresses, the cloud metadata endpoint among them, are
// out of reach.
func TestNetworkPolicyLimitsEgress(t *testing.T) {
	o := manifests(t)
	require.Len(t, o.policies, 1)
	np := o.policies[0]
	for k, v := range np.Spec.PodSelector.MatchLabels {
		assert.Equal(t, v, o.deps[0].Spec.Template.Labels[k], "the policy selects the cogworks pods by %s", k)
	}
	assert.Contains(t, np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	require.NotEmpty(t, np.Spec.Egress)
	for _, rule := range np.Spec.Egress {
		require.NotEmpty(t, rule.Ports, "every egress rule names its ports")
		for _, p := range rule.Ports {
			require.NotNil(t, p.Port)
			assert.Contains(t, []int{53, 443}, p.Port.IntValue(), "egress only for DNS and HTTPS")
		}
		for _, peer := range rule.To {
			if peer.IPBlock == nil {
				continue
			}
			for _, internal := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} {
				assert.Contains(t, peer.IPBlock.Except, internal, "%s excluded from %s", internal, peer.IPBlock.CIDR)
			}
		}
	}
}

func TestDockerComposeDomainService(t *testing.T) {
	data, err := os.ReadFile("docker-compose.yml")
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c compose
	require.NoError(t, dec.Decode(&c))
	dom, ok := c.Services["domain-go"]
	require.True(t, ok)
	cw := c.Services["cogworks"]
	assert.True(t, strings.HasPrefix(dom.Image, image+"-domain-go:"))
	assert.Empty(t, dom.Secrets, "no secrets")
	for k, v := range dom.Environment {
		assert.False(t, secretish(k), "%s looks like a credential", k)
		assert.NotContains(t, v, "${", "%s takes nothing from the operator's environment", k)
	}
	assert.True(t, dom.ReadOnly)
	assert.Equal(t, "none", dom.NetworkMode, "it talks over its socket only")
	assert.Equal(t, []string{"ALL"}, dom.CapDrop)
	assert.Contains(t, dom.SecurityOpt, "no-new-privileges:true")
	assert.NotEmpty(t, dom.MemLimit)
	assert.Positive(t, dom.CPUs)
	assert.Positive(t, dom.PidsLimit)
	assert.NotEqual(t, "0", strings.Split(dom.User, ":")[0], "not root")
	source := func(v string) string { return strings.Split(v, ":")[0] }
	cwVolumes := map[string]bool{}
	for _, v := range cw.Volumes {
		cwVolumes[source(v)] = true
	}
	var shared []string
	for _, v := range dom.Volumes {
		if cwVolumes[source(v)] {
			shared = append(shared, source(v))
		}
	}
	assert.Equal(t, []string{"domain-socket"}, shared, "only the socket volume is shared")
	assert.Equal(t, "true", cw.Environment["COGWORKS_DOMAIN_INLINE_REPO"])
	assert.Equal(t, "/etc/cogworks/services.toml", cw.Environment["COGWORKS_DOMAIN_SERVICES_CONFIG"])
	assert.Contains(t, cw.Volumes, "./domain-services.toml:/etc/cogworks/services.toml:ro")
	registration, err := os.ReadFile("domain-services.toml")
	require.NoError(t, err)
	assert.Contains(t, string(registration), `endpoint = "/run/cogworks-domain/go.sock"`)
	cfgs, err := domain.LoadServices("domain-services.toml")
	require.NoError(t, err, "cogworks accepts the registration")
	require.Len(t, cfgs, 1)
}
