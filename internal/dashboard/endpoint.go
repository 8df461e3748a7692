package dashboard

import (
	"errors"
	"net/http"

	"parley/internal/domain"
	"parley/internal/outbound"
)

func init() {
	add(map[string][3]string{
		"agent.llm.refused": {"The LLM endpoint leads to %s, %s. This server does not call private addresses; its administrator can allow them with PARLEY_FETCH_ALLOW_PRIVATE.",
			"Endpointul LLM duce la %s, %s. Acest server nu apelează adrese private; administratorul său le poate permite cu PARLEY_FETCH_ALLOW_PRIVATE.",
			"Адрес LLM ведёт на %s — %s. Этот сервер не обращается к частным адресам; администратор может разрешить их через PARLEY_FETCH_ALLOW_PRIVATE."},
		"outbound.loopback":    {"a loopback address", "o adresă loopback", "адрес обратной петли (loopback)"},
		"outbound.private":     {"a private address", "o adresă privată", "частный адрес"},
		"outbound.linklocal":   {"a link-local address", "o adresă link-local", "локальный адрес канала (link-local)"},
		"outbound.shared":      {"a shared (carrier-grade NAT) address", "o adresă partajată (NAT de operator)", "общий адрес операторского NAT (CGNAT)"},
		"outbound.multicast":   {"a multicast address", "o adresă multicast", "групповой адрес (multicast)"},
		"outbound.unspecified": {"an unspecified address", "o adresă nespecificată", "неопределённый адрес"},
		"outbound.broadcast":   {"the broadcast address", "adresa de broadcast", "широковещательный адрес"},
		"outbound.reserved":    {"a reserved address", "o adresă rezervată", "зарезервированный адрес"},
	})
}

// refusedEndpoint says where a refused LLM endpoint leads, for the
// message "agent.llm.refused" at the top of the agent page.
type refusedEndpoint struct {
	Target string // "127.0.0.1", or "localhost (127.0.0.1)" for a name
	Class  string // message key of the address's kind: "outbound.loopback"
}

// checkEndpoint applies Options.CheckAgentConfig to the config the
// settings form would save. A refused address comes back as what the page
// explains; any other refusal (not an http(s) URL) as a message key.
func (d *Dashboard) checkEndpoint(r *http.Request, cfg domain.AgentConfig) (*refusedEndpoint, string) {
	if d.CheckAgentConfig == nil {
		return nil, ""
	}
	err := d.CheckAgentConfig(r.Context(), cfg)
	if err == nil {
		return nil, ""
	}
	var refused *outbound.Refusal
	if !errors.As(err, &refused) {
		return nil, "agent.llm.invalid"
	}
	target := refused.Addr.String()
	if refused.Host != "" {
		target = refused.Host + " (" + target + ")"
	}
	return &refusedEndpoint{Target: target, Class: "outbound." + refused.Class.Key()}, ""
}
