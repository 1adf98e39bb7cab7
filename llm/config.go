package llm

import (
	"fmt"
	"net/http"
	"strings"
)

// Provider names accepted by FromConfig.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
)

// Config selects and configures a real provider. Environment overrides
// (COGWORKS_LLM_*) are applied by cmd before calling FromConfig.
type Config struct {
	// Provider is "anthropic" or "openai" (any OpenAI-compatible server:
	// Ollama, vLLM, llama.cpp; "ollama", "vllm" and "llamacpp" are accepted
	// as aliases and need BaseURL).
	Provider string
	BaseURL  string
	APIKey   string
	Model    string
	// HTTPClient carries timeouts and transport middleware; nil means a
	// client with a 5-minute timeout.
	HTTPClient *http.Client
}

// FromConfig builds the provider named by cfg.Provider.
func FromConfig(cfg Config) (Provider, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: DefaultHTTPTimeout}
	}
	switch strings.ToLower(strings.TrimSpace(cfg.Provider)) {
	case ProviderAnthropic, "":
		if cfg.APIKey == "" {
			return nil, fmt.Errorf("llm provider %q: an API key is required", ProviderAnthropic)
		}
		return &Anthropic{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: client}, nil
	case ProviderOpenAI:
		if cfg.APIKey == "" && cfg.BaseURL == "" {
			return nil, fmt.Errorf("llm provider %q: an API key is required for the default endpoint", ProviderOpenAI)
		}
		return &OpenAI{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: client}, nil
	case "ollama", "vllm", "llamacpp", "llama.cpp":
		if cfg.BaseURL == "" {
			return nil, fmt.Errorf("llm provider %q: base_url is required (the server's OpenAI-compatible /v1 endpoint)", cfg.Provider)
		}
		return &OpenAI{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, HTTPClient: client}, nil
	default:
		return nil, fmt.Errorf("llm provider %q: unknown (want %q or %q)", cfg.Provider, ProviderAnthropic, ProviderOpenAI)
	}
}
