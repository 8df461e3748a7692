package manageapi

import (
	"testing"

	"parley/internal/domain"
)

func TestKeepAPIKeyKeepsBothSecrets(t *testing.T) {
	t.Parallel()
	prev := domain.DecodeAgentConfig([]byte(`{"llm":{"api_key":"sk-l","model":"m"},"embed":{"api_key":"sk-e","model":"e"}}`))
	for _, tc := range []struct{ in, want string }{
		// What the owner got back (api_key_set) sent again keeps both keys.
		{`{"llm":{"api_key_set":true,"model":"m2"},"embed":{"api_key_set":true,"model":"e2"}}`,
			`{"embed":{"api_key":"sk-e","model":"e2"},"llm":{"api_key":"sk-l","model":"m2"}}`},
		{`{"embed":{"api_key":"","model":"e"}}`, `{"embed":{"model":"e"}}`},
		{`{"embed":{"api_key":"new"}}`, `{"embed":{"api_key":"new"}}`},
		{`{"greeting":"Hi"}`, `{"greeting":"Hi"}`},
	} {
		next := domain.DecodeAgentConfig([]byte(tc.in))
		if got := string(keepAPIKey(&next, prev)); got != tc.want {
			t.Errorf("keepAPIKey(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
