package dashboard

import (
	"errors"
	"net/http"
	"parley/internal/agentadmin"
	"parley/internal/domain"
	"parley/internal/origins"
	"strings"
)

// agentsData is the agents list.
type agentsData struct {
	Rows []agentRow
	Name string // the create form, as typed
}

type agentRow struct {
	domain.Agent
	Key string // newest active key, "" when none
}

// Agents lists the account's agents with a form to create one.
func (d *Dashboard) Agents(w http.ResponseWriter, r *http.Request) {
	d.showAgents(w, r, http.StatusOK, agentsData{}, "")
}

func (d *Dashboard) showAgents(w http.ResponseWriter, r *http.Request, status int, data agentsData, errKey string) {
	u := user(r)
	agents, err := d.AgentAdmin.Agents(r.Context(), u.AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for _, a := range agents {
		keys, err := d.AgentAdmin.Keys(r.Context(), u.AccountID, a.ID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Rows = append(data.Rows, agentRow{Agent: a, Key: agentadmin.EmbedKey(keys)})
	}
	d.render(w, r, status, "agents", view{Title: "agents.title", Nav: "agents", Error: errKey, Data: data})
}

// CreateAgent creates an agent with its first widget key and lands on its
// page at the embed code, which is what the owner came for.
func (d *Dashboard) CreateAgent(w http.ResponseWriter, r *http.Request) {
	if status, key := readAgentForm(w, r, maxSmallForm); key != "" {
		d.showAgents(w, r, status, agentsData{}, key)
		return
	}
	name := r.PostFormValue("name")
	ag, err := d.AgentAdmin.CreateAgent(r.Context(), user(r).AccountID, agentadmin.NewAgent{Name: name})
	if errors.Is(err, agentadmin.ErrName) {
		d.showAgents(w, r, http.StatusBadRequest, agentsData{Name: name}, "agent.name.invalid")
		return
	}
	if key := limitKey(err); key != "" {
		d.showAgents(w, r, http.StatusForbidden, agentsData{Name: name}, key)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=agent.created#embed", http.StatusSeeOther)
}

// agentData is the agent page. The drafts hold what was typed into a form
// that failed, so the page shows it again.
type agentData struct {
	Agent     domain.Agent
	Keys      []domain.WidgetKey
	Key       string // the newest active key: the one to embed and preview
	Embed     string // the snippet
	Settings  settingsForm
	Knowledge []domain.KnowledgeEntry // with a failed edit's draft in place
	EditID    string                  // the item whose edit form failed
	QA, Doc   domain.KnowledgeEntry   // the add forms
	Usage     *kbUsage                // the knowledge against its bounds

	// IdentitySecret is the key of visitors' user_hash (identity
	// verification), shown to the owner with a Rotate button.
	IdentitySecret string

	Refused *refusedEndpoint // the LLM endpoint the settings form named leads to a refused address
	Sources *sourcesView     // the website sources; nil when the instance serves none
	Origins []origins.Seen   // the sites the widget was used from lately

	// The add-source form as typed, and the message key and values of
	// its refusal.
	sourceForm    sourceForm
	sourceProblem string
	sourceArgs    []any

	settingsTyped bool // Settings comes from the request, not the config
	edit          *domain.KnowledgeEntry
}

// agent loads one of the signed-in user's account's agents; another
// account's is domain.ErrNotFound, like a missing one.
func (d *Dashboard) agent(r *http.Request) (domain.Agent, error) {
	return d.AgentAdmin.Agent(r.Context(), user(r).AccountID, r.PathValue("id"))
}

// Agent shows an agent: embed code and keys, settings, knowledge and the
// live preview.
func (d *Dashboard) Agent(w http.ResponseWriter, r *http.Request) {
	d.showAgent(w, r, http.StatusOK, agentData{}, "")
}

func (d *Dashboard) showAgent(w http.ResponseWriter, r *http.Request, status int, data agentData, errKey string) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Keys, err = d.AgentAdmin.Keys(r.Context(), ag.AccountID, ag.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.IdentitySecret, err = d.AgentAdmin.IdentitySecret(r.Context(), ag.AccountID, ag.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Knowledge, err = d.AgentAdmin.Knowledge(r.Context(), ag.AccountID, ag.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	data.Usage = usageOf(data.Knowledge, d.AgentAdmin.Bounds().Knowledge, language(r))
	if data.edit != nil {
		for i, e := range data.Knowledge {
			if e.ID == data.edit.ID {
				data.Knowledge[i] = *data.edit
				data.EditID = e.ID
			}
		}
	}
	if data.Sources, err = d.sourcesOf(r, ag, data.sourceForm); err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Sources != nil {
		data.Sources.Problem, data.Sources.Args = data.sourceProblem, data.sourceArgs
	}
	if d.Origins != nil {
		if data.Origins, err = d.Origins.For(r.Context(), ag); err != nil {
			d.fail(w, r, err)
			return
		}
	}
	data.Agent = ag
	data.Key = agentadmin.EmbedKey(data.Keys)
	if data.Key != "" {
		data.Embed = `<script async src="` + d.widgetBase(r) + `/widget.js" data-key="` + data.Key + `"></script>`
	}
	if !data.settingsTyped {
		data.Settings = settingsOf(ag)
	}
	data.Settings.Limits.Defaults = d.limitDefaults()
	d.render(w, r, status, "agent", view{Title: "agent.title", Nav: "agents", Error: errKey, Data: data})
}

// baseURL is where sites load the widget from: the configured public URL,
// else this request's scheme and host. Behind a TLS-terminating proxy the
// scheme comes from X-Forwarded-Proto; trusting it is harmless here, as the
// snippet is only shown to the owner who sent the request (set
// PARLEY_BASE_URL for anything else).
func (d *Dashboard) widgetBase(r *http.Request) string {
	if d.BaseURL != "" {
		return strings.TrimRight(d.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
