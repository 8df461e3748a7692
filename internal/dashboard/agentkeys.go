package dashboard

import (
	"net/http"
	"parley/internal/domain"
	"parley/internal/secret"
	"slices"
)

// newestActive is the key to embed: the store lists keys oldest first,
// and after a rotation the newest is the one sites should switch to.
func newestActive(keys []domain.WidgetKey) string {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].Active {
			return keys[i].Key
		}
	}
	return ""
}

// agentKeys loads the request's agent and its widget keys.
func (d *Dashboard) agentKeys(r *http.Request) (domain.Agent, []domain.WidgetKey, error) {
	ag, err := d.agent(r)
	if err != nil {
		return domain.Agent{}, nil, err
	}
	keys, err := d.Store.Keys(r.Context(), ag.AccountID, ag.ID)
	return ag, keys, err
}

// RotateKey creates a new widget key and deactivates the older active
// ones: the usual reason to rotate is a key that should stop working. An
// owner who needs both for a while activates the old one again.
func (d *Dashboard) RotateKey(w http.ResponseWriter, r *http.Request) {
	ag, old, err := d.agentKeys(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// The new key first, so the agent is never left without an active one.
	if _, err := d.Store.CreateKey(r.Context(), ag.AccountID, ag.ID, secret.WidgetKey()); err != nil {
		d.fail(w, r, err)
		return
	}
	for _, k := range old {
		if k.Active {
			if _, err := d.Store.SetKeyActive(r.Context(), ag.AccountID, k.Key, false); err != nil {
				d.fail(w, r, err)
				return
			}
		}
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=embed.rotated#embed", http.StatusSeeOther)
}

// SetKeyActive activates or deactivates one of the agent's keys
// (active=true|false).
func (d *Dashboard) SetKeyActive(w http.ResponseWriter, r *http.Request) {
	ag, keys, err := d.agentKeys(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	// The key must be this agent's: the store only checks the account.
	if !slices.ContainsFunc(keys, func(k domain.WidgetKey) bool { return k.Key == r.PathValue("key") }) {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	if status, key := readAgentForm(w, r, maxSmallForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	var active bool
	switch r.PostFormValue("active") {
	case "true":
		active = true
	case "false":
	default:
		d.showAgent(w, r, http.StatusBadRequest, agentData{}, "agent.invalid")
		return
	}
	if _, err := d.Store.SetKeyActive(r.Context(), ag.AccountID, r.PathValue("key"), active); err != nil {
		d.fail(w, r, err)
		return
	}
	flash := "embed.deactivated"
	if active {
		flash = "embed.activated"
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash="+flash+"#embed", http.StatusSeeOther)
}
