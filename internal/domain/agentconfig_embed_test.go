package domain

import (
	"errors"
	"testing"
)

func TestEmbedConfig(t *testing.T) {
	t.Parallel()
	c := DecodeAgentConfig([]byte(`{"greeting":"Hi","embed":{"base_url":"http://e/v1","model":"nomic","api_key":"sk-e","dims":768}}`))
	if e := c.Embed; e.BaseURL != "http://e/v1" || e.Model != "nomic" || e.Key() != "sk-e" || string(e.Extra["dims"]) != "768" {
		t.Fatalf("Embed = %+v", e)
	}
	if got, want := string(c.Public()), `{"greeting":"Hi"}`; got != want {
		t.Errorf("Public = %s, want %s (embed is private)", got, want)
	}
	if got, want := string(c.Owner()), `{"embed":{"api_key_set":true,"base_url":"http://e/v1","dims":768,"model":"nomic"},"greeting":"Hi"}`; got != want {
		t.Errorf("Owner = %s, want %s", got, want)
	}
	c.Embed.Model = "other"
	if got, want := string(c.JSON()), `{"embed":{"api_key":"sk-e","base_url":"http://e/v1","dims":768,"model":"other"},"greeting":"Hi"}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

func TestEmbedConfigErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"embed":1}`:                              "config.embed must be an object",
		`{"embed":{"model":4}}`:                    "config.embed.model must be a string",
		`{"embed":{"base_url":"ftp://h/v1"}}`:      `config.embed.base_url: scheme "ftp" is not allowed: use http or https`,
		`{"embed":{"base_url":"http:///v1"}}`:      "config.embed.base_url must be an http or https URL such as https://api.openai.com/v1",
		`{"embed":{"api_key":"` + long1001 + `"}}`: "config.embed.api_key must be at most 1000 characters",
	} {
		c, err := ParseAgentConfig([]byte(in))
		if err == nil {
			err = c.Validate()
		}
		var ce *ConfigError
		var inv *InvalidError
		if err == nil || err.Error() != want || (!errors.As(err, &ce) && !errors.As(err, &inv)) {
			t.Errorf("%s: %v, want %q (a 400)", in, err, want)
		}
	}
	if c, err := ParseAgentConfig([]byte(`{"embed":{"base_url":"https://api.openai.com/v1","model":"text-embedding-3-small"}}`)); err != nil || c.Validate() != nil {
		t.Errorf("valid embed config: %v, %v", err, c.Validate())
	}
}

var long1001 = repeatX(1001)

func repeatX(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'x'
	}
	return string(b)
}
