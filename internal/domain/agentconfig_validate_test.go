package domain

import (
	"errors"
	"strings"
	"testing"
)

// Validate's rule is the one the dashboard's settings form and the
// management API both apply; field is what the dashboard maps to its
// message.
func TestValidate(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	q := func(n int) string { return `"` + x(n) + `"` }
	for _, tt := range []struct{ in, field string }{
		{`{}`, ""},
		{`{"greeting":` + q(1000) + `,"launcher_text":` + q(40) + `,"instructions":` + q(20000) + `}`, ""},
		{`{"greeting":"` + strings.Repeat("ă", 1000) + `"}`, ""}, // characters, not bytes
		{`{"greeting":` + q(1001) + `}`, "greeting"},
		{`{"launcher_text":` + q(41) + `}`, "launcher_text"},
		{`{"instructions":` + q(20001) + `}`, "instructions"},
		{`{"color":"#abc"}`, ""},
		{`{"color":"#A0B1C2"}`, ""},
		{`{"color":"#abcd"}`, "color"},
		{`{"color":"red"}`, "color"},
		{`{"position":"left"}`, ""},
		{`{"position":"top"}`, "position"},
		{`{"lang":"ru"}`, ""},
		{`{"lang":"de"}`, "lang"},
		{`{"quick_replies":["a","b","c","d","e","f"]}`, ""},
		{`{"quick_replies":["a","b","c","d","e","f","g"]}`, "quick_replies"},
		{`{"quick_replies":[` + q(101) + `]}`, "quick_replies"},
		{`{"quick_replies":[" "]}`, "quick_replies"},
		{`{"handoff":{"message":` + q(1001) + `}}`, "handoff.message"},
		{`{"handoff":{"message":{"ro":` + q(1001) + `}}}`, "handoff.message.ro"},
		{`{"handoff":{"message":{"de":"x"}}}`, "handoff.message"},
		{`{"handoff":{"message":{"":"x","en":"y"},"note":1}}`, ""},
		{`{"llm":{"model":` + q(1001) + `}}`, "llm.model"},
		{`{"llm":{"api_key":` + q(1001) + `}}`, "llm.api_key"},
		{`{"llm":{"base_url":"https://api.openai.com/v1","temperature":0.2}}`, ""},
		{`{"llm":{"base_url":"ftp://h/"}}`, "llm.base_url"},
		{`{"llm":{"base_url":"http://"}}`, "llm.base_url"},
		// The limits' rules, as initlimit.Check had them.
		{`{"limits":{}}`, ""},
		{`{"limits":{"conversations_per_ip_per_hour":0,"conversations_per_visitor_per_hour":100000}}`, ""},
		{`{"limits":{"conversations_per_ip_per_hour":100001}}`, "limits.conversations_per_ip_per_hour"},
		{`{"limits":{"conversations_per_ip_per_hour":-1}}`, "limits.conversations_per_ip_per_hour"},
		{`{"limits":{"conversations_per_ip_per_hour":2.5}}`, "limits.conversations_per_ip_per_hour"},
		{`{"limits":{"conversations_per_ip_per_hour":"2"}}`, "limits.conversations_per_ip_per_hour"},
		{`{"limits":{"conversations_per_ip_per_hour":null}}`, "limits.conversations_per_ip_per_hour"},
		{`{"limits":{"per_ip":2}}`, "limits"},
		{`{"limits":[]}`, "limits"},
		{`{"limits":null}`, "limits"},
		{`{"limits":3}`, "limits"},
	} {
		c, err := ParseAgentConfig([]byte(tt.in))
		if err == nil {
			err = c.Validate()
		}
		var ce *ConfigError
		var invalid *InvalidError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%.80s: %v, want ok", tt.in, err)
		case tt.field != "" && (!errors.As(err, &ce) || ce.Field != tt.field || !errors.As(err, &invalid)):
			t.Errorf("%.80s: %v, want a 400 on %s", tt.in, err, tt.field)
		case tt.field != "" && !strings.HasPrefix(err.Error(), "config."+tt.field):
			t.Errorf("%.80s: %q does not name config.%s", tt.in, err, tt.field)
		}
	}
}
