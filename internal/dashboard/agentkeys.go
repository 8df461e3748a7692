package dashboard

import (
	"net/http"
)

// RotateKey gives the agent a new widget key and deactivates its others
// (agentadmin.Service.NewKey): the usual reason to rotate is a key that
// should stop working. An owner who needs both for a while activates the
// old one again.
func (d *Dashboard) RotateKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := d.AgentAdmin.NewKey(r.Context(), user(r).AccountID, id); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=embed.rotated#embed", http.StatusSeeOther)
}

// SetKeyActive activates or deactivates one of the agent's keys
// (active=true|false).
func (d *Dashboard) SetKeyActive(w http.ResponseWriter, r *http.Request) {
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
	id := r.PathValue("id")
	if _, err := d.AgentAdmin.SetAgentKeyActive(r.Context(), user(r).AccountID, id, r.PathValue("key"), active); err != nil {
		d.fail(w, r, err)
		return
	}
	flash := "embed.deactivated"
	if active {
		flash = "embed.activated"
	}
	http.Redirect(w, r, "/agents/"+id+"?flash="+flash+"#embed", http.StatusSeeOther)
}

// RotateIdentitySecret gives the agent a new identity secret
// (agentadmin.Service.RotateIdentitySecret): every user_hash made with
// the old one is refused from now on.
func (d *Dashboard) RotateIdentitySecret(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := d.AgentAdmin.RotateIdentitySecret(r.Context(), user(r).AccountID, id); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=identity.rotated#identity", http.StatusSeeOther)
}
