package domain

import (
	"errors"
	"strings"
	"testing"
)

func originConfig(t *testing.T, js string) AgentConfig {
	t.Helper()
	c, err := ParseAgentConfig([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckOrigin(t *testing.T) {
	t.Parallel()
	c := originConfig(t, `{"allowed_origins": ["https://shop.example", "https://*.Shop.example", "http://localhost:8080/", "https://*.ports.example:8443"]}`)
	tests := []struct {
		origin string
		ok     bool
	}{
		{"", true}, // no Origin: a server, allowed unless require_origin
		{"https://shop.example", true},
		{"HTTPS://SHOP.EXAMPLE", true},  // case
		{"https://shop.example/", true}, // a trailing slash
		{"http://shop.example", false},  // another scheme
		{"https://shop.example:8443", false},
		{"https://www.shop.example", true}, // wildcard
		{"https://a.b.shop.example", true}, // at any depth
		{"https://WWW.shop.EXAMPLE", true},
		{"https://www.shop.example:444", false}, // a port the pattern has not
		{"https://evilshop.example", false},     // not a subdomain
		{"https://shop.example.evil.example", false},
		{"https://.shop.example", false},
		{"http://localhost:8080", true},
		{"http://localhost", false},
		{"http://localhost:8081", false},
		{"https://x.ports.example:8443", true},
		{"https://x.ports.example", false},
		{"https://evil.example:1.ports.example:8443", false},
		{"null", false}, // a sandboxed frame or a file
		{"https://other.example", false},
	}
	for _, tt := range tests {
		err := c.CheckOrigin(tt.origin)
		if got := err == nil; got != tt.ok {
			t.Errorf("CheckOrigin(%q) = %v, want allowed %v", tt.origin, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrOriginRefused) {
			t.Errorf("CheckOrigin(%q) = %v, want ErrOriginRefused", tt.origin, err)
		}
	}
}

func TestCheckOriginDefaultsAndRequire(t *testing.T) {
	t.Parallel()
	open := originConfig(t, `{"greeting": "Hi"}`)
	for _, o := range []string{"", "https://anything.example", "null"} {
		if err := open.CheckOrigin(o); err != nil {
			t.Errorf("no list: %q refused: %v", o, err)
		}
	}
	if err := originConfig(t, `{"allowed_origins": []}`).CheckOrigin("https://any.example"); err != nil {
		t.Errorf("an empty list must allow any origin: %v", err)
	}
	req := originConfig(t, `{"allowed_origins": ["https://shop.example"], "require_origin": true}`)
	if err := req.CheckOrigin(""); !errors.Is(err, ErrOriginRefused) {
		t.Errorf("require_origin: no Origin = %v, want refused", err)
	}
	if err := req.CheckOrigin("https://shop.example"); err != nil {
		t.Errorf("require_origin: listed origin refused: %v", err)
	}
	// require_origin alone: any browser page, no servers.
	only := originConfig(t, `{"require_origin": true}`)
	if only.CheckOrigin("") == nil || only.CheckOrigin("https://any.example") != nil {
		t.Error("require_origin without a list must refuse only requests without Origin")
	}
	if originConfig(t, `{"allowed_origins": ["https://shop.example"], "require_origin": false}`).CheckOrigin("") != nil {
		t.Error("require_origin false: no Origin must be allowed")
	}
}

func TestValidateOrigins(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`{"allowed_origins": "https://shop.example"}`,
		`{"allowed_origins": [1]}`,
		`{"require_origin": "yes"}`,
		`{"allowed_origins": ["shop.example"]}`,
		`{"allowed_origins": ["ftp://shop.example"]}`,
		`{"allowed_origins": ["https://shop.example/path"]}`,
		`{"allowed_origins": ["https://shop.example?q=1"]}`,
		`{"allowed_origins": ["https://user@shop.example"]}`,
		`{"allowed_origins": ["https://"]}`,
		`{"allowed_origins": [""]}`,
		`{"allowed_origins": ["https://*"]}`,
		`{"allowed_origins": ["https://a.*.shop.example"]}`,
		`{"allowed_origins": ["https://shop.example:port"]}`,
		`{"allowed_origins": ["https://` + strings.Repeat("a", MaxOriginChars) + `.example"]}`,
		`{"allowed_origins": [` + strings.Repeat(`"https://a.example",`, MaxAllowedOrigins) + `"https://b.example"]}`,
	} {
		c, err := ParseAgentConfig([]byte(bad))
		if err == nil {
			err = c.Validate()
		}
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Field, "allowed_origins") && ce.Field != ConfigRequireOrigin {
			t.Errorf("%.80s: err = %v, want a config error naming the member", bad, err)
		}
	}
	originConfig(t, `{"allowed_origins": [`+strings.TrimSuffix(strings.Repeat(`"https://a.example",`, MaxAllowedOrigins), ",")+`], "require_origin": true}`)
}

// The list is the owner's: init never shows it to visitors; the owner's
// view and the stored config keep it.
func TestOriginsArePrivate(t *testing.T) {
	t.Parallel()
	c := originConfig(t, `{"greeting": "Hi", "allowed_origins": ["https://shop.example"], "require_origin": true}`)
	if p := string(c.Public()); p != `{"greeting":"Hi"}` {
		t.Errorf("Public() = %s", p)
	}
	for _, js := range []string{string(c.JSON()), string(c.Owner())} {
		if !strings.Contains(js, `"allowed_origins": ["https://shop.example"]`) || !strings.Contains(js, `"require_origin": true`) {
			t.Errorf("stored/owner config lost the origins: %s", js)
		}
	}
}

func BenchmarkCheckOrigin(b *testing.B) {
	list := make([]string, 0, MaxAllowedOrigins)
	for range MaxAllowedOrigins - 1 {
		list = append(list, "https://*.other.example")
	}
	c := AgentConfig{AllowedOrigins: append(list, "https://*.shop.example")}
	b.ReportAllocs()
	for b.Loop() {
		if c.CheckOrigin("https://www.shop.example") != nil {
			b.Fatal("refused")
		}
	}
}
