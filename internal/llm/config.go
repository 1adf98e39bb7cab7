package llm

import (
	"net/http"
	"strings"
)

// Provider names accepted by providers.FromConfig; the same names are accepted in
// .cogworks/config.toml ([llm] provider) and COGWORKS_LLM_PROVIDER.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
	// ProviderOllama and ProviderVLLM are OpenAI-compatible servers with
	// their own default base URLs and no API key.
	ProviderOllama = "ollama"
	ProviderVLLM   = "vllm"
	// ProviderScripted replays a script; tests and `cogworks demo` inject
	// it directly, so providers.FromConfig refuses it.
	ProviderScripted = "scripted"
)

// Default base URLs of the local OpenAI-compatible servers.
const (
	DefaultOllamaBaseURL = "http://localhost:11434/v1"
	DefaultVLLMBaseURL   = "http://localhost:8000/v1"
)

// Config selects and configures a real provider. Environment overrides
// (COGWORKS_LLM_*) are applied by the caller before providers.FromConfig
// (internal/llm/providers), which builds the provider.
type Config struct {
	// Provider is anthropic (the default when empty), openai, ollama or
	// vllm.
	Provider string
	// BaseURL overrides the provider's default endpoint (for openai,
	// ollama and vllm including /v1).
	BaseURL string
	APIKey  string
	Model   string
	// ReasoningEffort is passed to OpenAI's reasoning models when set
	// (none … max); empty leaves the model's default.
	ReasoningEffort string
	// Stream asks Anthropic and OpenAI for streamed answers, bounded by
	// the silence between events rather than HTTPClient's Timeout.
	Stream bool
	// Models is the model table the providers consult for a model's API
	// (chat or responses), structured-output style and retirement; nil
	// means the built-in table.
	Models *ModelTable
	// HTTPClient carries timeouts and transport middleware; nil means a
	// client with a 5-minute timeout.
	HTTPClient *http.Client
}

// NeedsAPIKey reports whether provider cannot work without an API key
// (with the given base URL): anthropic always, openai on its default
// endpoint.
func NeedsAPIKey(provider, baseURL string) bool {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case ProviderAnthropic, "":
		return true
	case ProviderOpenAI:
		return baseURL == ""
	}
	return false
}

// KeySecret is the name of the repository secret the workflows CogWorks
// ships (examples/workflows, `cogworks init`) read the provider's API key
// from: the name the provider's own tools use. README, docs/deployment.md,
// action.yml and the missing-key error name the same secret, which
// action/workflow_policy_test.go checks. "" for providers without a key.
func KeySecret(provider string) string {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case ProviderAnthropic, "":
		return "ANTHROPIC_API_KEY"
	case ProviderOpenAI:
		return "OPENAI_API_KEY"
	}
	return ""
}
