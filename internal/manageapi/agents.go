package manageapi

import (
	"encoding/json"
	"net/http"
	"time"

	"parley/internal/agentadmin"
	"parley/internal/domain"
	"parley/internal/httpx"
)

type agentJSON struct {
	ID          string                  `json:"id"`
	ChatbotName string                  `json:"chatbot_name"`
	Config      json.RawMessage         `json:"config"`
	WidgetKey   string                  `json:"widget_key"` // the newest active key, "" when none
	WidgetKeys  []keyJSON               `json:"widget_keys,omitempty"`
	Knowledge   []domain.KnowledgeEntry `json:"knowledge,omitempty"`
	CreatedAt   time.Time               `json:"created_at"`
	UpdatedAt   time.Time               `json:"updated_at"`
	// IdentitySecret is the agent's key for visitors' user_hash, only in
	// GET /api/v1/agents/{id} (identity verification).
	IdentitySecret string `json:"identity_secret,omitempty"`
}

// agentInput is the body of a create or an update. The rules on its
// fields are agentadmin's; only "chatbot_name is required" is this API's,
// as it is about the field being sent.
type agentInput struct {
	ChatbotName *string                  `json:"chatbot_name"`
	Config      json.RawMessage          `json:"config"`
	Knowledge   *[]domain.KnowledgeEntry `json:"knowledge"`
}

func (a *API) CreateAgent(w http.ResponseWriter, r *http.Request) {
	var in agentInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.ChatbotName == nil {
		httpx.Error(w, r, domain.Invalid("chatbot_name is required"))
		return
	}
	na := agentadmin.NewAgent{Name: *in.ChatbotName, Config: in.Config, KeepSecrets: keepAPIKey} // drops a stray api_key_set or empty api_key
	if in.Knowledge != nil {
		na.Knowledge = *in.Knowledge
	}
	ag, err := a.agents.CreateAgent(r.Context(), account(r).ID, na)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/agents/"+ag.ID)
	a.writeAgent(w, r, ag, http.StatusCreated)
}

func (a *API) ListAgents(w http.ResponseWriter, r *http.Request) {
	agents, err := a.agents.Agents(r.Context(), account(r).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]agentJSON, 0, len(agents))
	for _, ag := range agents {
		j, err := a.agentJSON(r, ag, false)
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		out = append(out, j)
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"agents": out})
}

func (a *API) GetAgent(w http.ResponseWriter, r *http.Request) {
	ag, err := a.agents.Agent(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out, err := a.agentJSON(r, ag, true)
	if err == nil {
		out.IdentitySecret, err = a.agents.IdentitySecret(r.Context(), ag.AccountID, ag.ID)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

// RotateIdentitySecret answers with the agent's new identity secret.
func (a *API) RotateIdentitySecret(w http.ResponseWriter, r *http.Request) {
	s, err := a.agents.RotateIdentitySecret(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, struct {
		IdentitySecret string `json:"identity_secret"`
	}{s})
}

func (a *API) UpdateAgent(w http.ResponseWriter, r *http.Request) {
	var in agentInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ag, err := a.agents.UpdateAgent(r.Context(), account(r).ID, r.PathValue("id"), agentadmin.AgentChange{
		Name: in.ChatbotName, Config: in.Config, Knowledge: in.Knowledge, KeepSecrets: keepAPIKey,
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.writeAgent(w, r, ag, http.StatusOK)
}

// writeAgent answers with the agent's detail view.
func (a *API) writeAgent(w http.ResponseWriter, r *http.Request, ag domain.Agent, status int) {
	out, err := a.agentJSON(r, ag, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, status, out)
}

// agentJSON adds the agent's keys (and, in detail views, its knowledge).
func (a *API) agentJSON(r *http.Request, ag domain.Agent, detail bool) (agentJSON, error) {
	keys, err := a.agents.Keys(r.Context(), ag.AccountID, ag.ID)
	if err != nil {
		return agentJSON{}, err
	}
	out := agentJSON{
		ID: ag.ID, ChatbotName: ag.ChatbotName, Config: ag.Config.Owner(), WidgetKey: agentadmin.EmbedKey(keys),
		CreatedAt: ag.CreatedAt, UpdatedAt: ag.UpdatedAt,
	}
	if detail {
		for _, k := range keys {
			out.WidgetKeys = append(out.WidgetKeys, toKeyJSON(k))
		}
		if out.Knowledge, err = a.agents.Knowledge(r.Context(), ag.AccountID, ag.ID); err != nil {
			return agentJSON{}, err
		}
	}
	return out, nil
}
