package providers

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/cogworks/cogworks/internal/llm"
)

// FromConfig builds the provider named by cfg.Provider.
func FromConfig(cfg llm.Config) (llm.Provider, error) {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: llm.DefaultHTTPTimeout}
	}
	if cfg.Models == nil {
		// Parsed once here rather than on every request (about 1 ms each).
		if t, err := llm.BuiltinModelTable(); err == nil {
			cfg.Models = &t
		}
	}
	name := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if llm.NeedsAPIKey(name, cfg.BaseURL) && cfg.APIKey == "" {
		return nil, fmt.Errorf("llm provider %q: an API key is required (set COGWORKS_LLM_API_KEY)", orAnthropic(name))
	}
	switch name {
	case llm.ProviderAnthropic, "":
		return &Anthropic{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Models: cfg.Models, Stream: cfg.Stream, HTTPClient: client}, nil
	case llm.ProviderOpenAI:
		return &OpenAI{BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Models: cfg.Models, ReasoningEffort: cfg.ReasoningEffort, Stream: cfg.Stream, HTTPClient: client}, nil
	case llm.ProviderOllama, llm.ProviderVLLM:
		base := cfg.BaseURL
		if base == "" {
			base = llm.DefaultOllamaBaseURL
			if name == llm.ProviderVLLM {
				base = llm.DefaultVLLMBaseURL
			}
		}
		return &OpenAI{BaseURL: base, APIKey: cfg.APIKey, Model: cfg.Model, Flavor: name, HTTPClient: client}, nil
	case llm.ProviderScripted:
		return nil, fmt.Errorf("llm provider %q replays a script and is only available to tests and `cogworks demo`", llm.ProviderScripted)
	default:
		return nil, fmt.Errorf("llm provider %q: unknown (want one of %s, %s, %s, %s or %s)", cfg.Provider,
			llm.ProviderAnthropic, llm.ProviderOpenAI, llm.ProviderOllama, llm.ProviderVLLM, llm.ProviderScripted)
	}
}

func orAnthropic(name string) string {
	if name == "" {
		return llm.ProviderAnthropic
	}
	return name
}
