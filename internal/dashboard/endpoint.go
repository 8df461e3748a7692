package dashboard

import (
	"errors"

	"parley/internal/agentadmin"
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

// configRefusal reads agentadmin's refusal of the settings form: a name
// or a config it does not take. A refused address comes back as what the
// page explains; any other refusal of the LLM endpoint (not an http(s)
// URL) and a breach of the config's own rules as a message key. Other
// errors, and nil, are neither.
func configRefusal(err error) (*refusedEndpoint, string) {
	var ce *agentadmin.ConfigError
	switch {
	case errors.Is(err, agentadmin.ErrName):
		return nil, "agent.name.invalid"
	case !errors.As(err, &ce):
		return nil, ""
	case !ce.Endpoint:
		return nil, "agent.invalid" // a stored config the form kept, refused by the rules the API applies
	}
	var refused *outbound.Refusal
	if !errors.As(ce.Err, &refused) {
		return nil, "agent.llm.invalid"
	}
	target := refused.Addr.String()
	if refused.Host != "" {
		target = refused.Host + " (" + target + ")"
	}
	return &refusedEndpoint{Target: target, Class: "outbound." + refused.Class.Key()}, ""
}
