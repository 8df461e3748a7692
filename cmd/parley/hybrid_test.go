package main

import (
	"context"
	"strings"
	"testing"

	"parley/internal/agent/llm"
	"parley/internal/domain"
	"parley/internal/embed"
)

// An agent's embeddings endpoint on a private address is refused on save
// with a message naming config.embed.base_url; the LLM's is checked first.
func TestCheckEndpointsBoth(t *testing.T) {
	t.Parallel()
	check := checkEndpoints(llm.New(llm.Config{}, llm.Deps{}).CheckAgentConfig, embed.New(embed.Config{}, nil).CheckAgentConfig)
	ctx := context.Background()
	for cfg, want := range map[string]string{
		`{"embed":{"base_url":"http://127.0.0.1:9/v1","model":"e"}}`:                                      "config.embed.base_url: 127.0.0.1 is a loopback address",
		`{"llm":{"base_url":"http://10.0.0.1/v1"},"embed":{"base_url":"http://127.0.0.1:9/v1"}}`:          "config.llm.base_url: 10.0.0.1 is a private address",
		`{"embed":{"base_url":"https://93.184.216.34/v1"},"llm":{"base_url":"https://93.184.216.34/v1"}}`: "",
	} {
		err := check(ctx, domain.DecodeAgentConfig([]byte(cfg)))
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.HasPrefix(err.Error(), want))) {
			t.Errorf("%s: %v, want %q", cfg, err, want)
		}
	}
}
