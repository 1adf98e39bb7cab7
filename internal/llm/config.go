package llm

import (
	"fmt"
	"net/http"
	"strings"
)

// Provider names accepted by FromConfig; the same names are accepted in
// .cogworks/config.toml ([llm] provider) and COGWORKS_LLM_PROVIDER.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
	// ProviderOllama and ProviderVLLM are OpenAI-compatible servers with
	// their own default base URLs and no API key.
	ProviderOllama = "ollama"
	ProviderVLLM   = "vllm"
	// ProviderScripted replays a script; tests and `cogworks demo` inject
	// it directly, so FromConfig refuses it.
	ProviderScripted = "scripted"
)

// Default base URLs of the local OpenAI-compatible servers.
const (
	DefaultOllamaBaseURL = "http://localhost:11434/v1"
	DefaultVLLMBaseURL   = "http://localhost:8000/v1"
)

// Config selects and configures a real provider. Environment overrides
// (COGWORKS_LLM_*) are applied by the caller before FromConfig.
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

// FromConfig builds the provider named by cfg.Provider.
func FromConfig(cfg Config) (Provider, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	if cfg.Models == nil {
		// Parsed once here rather than on every request (about 1 ms each).
		if t, err := BuiltinModelTable(); err == nil {
			cfg.Models = &t
		}
	}
	name := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if NeedsAPIKey(name, cfg.BaseURL) && cfg.APIKey == "" {
		return nil, fmt.Errorf("llm provider %q: an API key is required (set COGWORKS_LLM_API_KEY)", orAnthropic(name))
	}
	switch name {
	case ProviderAnthropic, "":
		return &Anthropic{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Models: cfg.Models, Stream: cfg.Stream, HTTPClient: client}, nil
	case ProviderOpenAI:
		return &OpenAI{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Models: cfg.Models, ReasoningEffort: cfg.ReasoningEffort, Stream: cfg.Stream, HTTPClient: client}, nil
	case ProviderOllama, ProviderVLLM:
		base := cfg.BaseURL
		if base == "" {
			base = DefaultOllamaBaseURL
			if name == ProviderVLLM {
				base = DefaultVLLMBaseURL
			}
		}
		return &OpenAI{BaseURL: base, APIKey: cfg.APIKey, Model: cfg.Model, Flavor: name, HTTPClient: client}, nil
	case ProviderScripted:
		return nil, fmt.Errorf("llm provider %q replays a script and is only available to tests and `cogworks demo`", ProviderScripted)
	default:
		return nil, fmt.Errorf("llm provider %q: unknown (want one of %s, %s, %s, %s or %s)", cfg.Provider,
			ProviderAnthropic, ProviderOpenAI, ProviderOllama, ProviderVLLM, ProviderScripted)
	}
}

func orAnthropic(name string) string {
	if name == "" {
		return ProviderAnthropic
	}
	return name
}
