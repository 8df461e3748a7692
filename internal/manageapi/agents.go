package manageapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/secret"
	"parley/internal/store"
)

const maxChatbotName = 100

type agentJSON struct {
	ID          string                  `json:"id"`
	ChatbotName string                  `json:"chatbot_name"`
	Config      json.RawMessage         `json:"config"`
	WidgetKey   string                  `json:"widget_key"` // the newest active key, "" when none
	WidgetKeys  []keyJSON               `json:"widget_keys,omitempty"`
	Knowledge   []domain.KnowledgeEntry `json:"knowledge,omitempty"`
	CreatedAt   time.Time               `json:"created_at"`
	UpdatedAt   time.Time               `json:"updated_at"`
}

type keyJSON struct {
	Key       string    `json:"key"`
	AgentID   string    `json:"agent_id"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

func toKeyJSON(k domain.WidgetKey) keyJSON {
	return keyJSON{Key: k.Key, AgentID: k.AgentID, Active: k.Active, CreatedAt: k.CreatedAt}
}

func newestActive(keys []domain.WidgetKey) string {
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i].Active {
			return keys[i].Key
		}
	}
	return ""
}

type agentInput struct {
	ChatbotName *string                  `json:"chatbot_name"`
	Config      json.RawMessage          `json:"config"`
	Knowledge   *[]domain.KnowledgeEntry `json:"knowledge"`

	config domain.AgentConfig // Config decoded and validated
}

// validate checks the fields that are set; create additionally requires a
// name.
func (in *agentInput) validate() error {
	if in.ChatbotName != nil {
		n := strings.TrimSpace(*in.ChatbotName)
		if n == "" || utf8.RuneCountInString(n) > maxChatbotName {
			return domain.Invalid("chatbot_name must be 1 to 100 characters")
		}
		*in.ChatbotName = n
	}
	if in.Config != nil {
		c := bytes.TrimSpace(in.Config)
		if len(c) == 0 || c[0] != '{' {
			return domain.Invalid("config must be a JSON object")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, c); err != nil {
			return domain.Invalid("config must be a JSON object")
		}
		cfg, err := domain.ParseAgentConfig(buf.Bytes())
		if err == nil {
			err = cfg.Validate() // the dashboard's settings form applies it too
		}
		if err != nil {
			return err
		}
		in.config = cfg
	}
	if in.Knowledge != nil {
		for i, e := range *in.Knowledge {
			e, err := domain.CheckKnowledge(e)
			if err != nil {
				return err
			}
			(*in.Knowledge)[i] = e
		}
	}
	return nil
}

func (a *API) CreateAgent(w http.ResponseWriter, r *http.Request) {
	acc := account(r)
	var in agentInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.ChatbotName == nil {
		httpx.Error(w, r, domain.Invalid("chatbot_name is required"))
		return
	}
	if err := in.validate(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Config != nil {
		in.Config = keepAPIKey(&in.config, domain.AgentConfig{}) // drops a stray api_key_set or empty api_key
		if err := a.checkAgentConfig(r, in.config); err != nil {
			httpx.Error(w, r, err)
			return
		}
	}
	na := store.NewAgent{AccountID: acc.ID, ChatbotName: *in.ChatbotName, Config: in.Config, Key: secret.WidgetKey(),
		KnowledgeLimits: a.bounds.Knowledge, MaxAgents: a.bounds.MaxAgents}
	if in.Knowledge != nil {
		na.Knowledge = *in.Knowledge
	}
	ag, err := a.store.CreateAgent(r.Context(), na)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/agents/"+ag.ID)
	a.writeAgent(w, r, ag, http.StatusCreated)
}

func (a *API) ListAgents(w http.ResponseWriter, r *http.Request) {
	agents, err := a.store.Agents(r.Context(), account(r).ID)
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
	ag, err := a.store.Agent(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.writeAgent(w, r, ag, http.StatusOK)
}

func (a *API) UpdateAgent(w http.ResponseWriter, r *http.Request) {
	var in agentInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := in.validate(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Config != nil {
		prev, err := a.store.Agent(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		in.Config = keepAPIKey(&in.config, prev.Config)
		if err := a.checkAgentConfig(r, in.config); err != nil {
			httpx.Error(w, r, err)
			return
		}
	}
	ag, err := a.store.UpdateAgent(r.Context(), account(r).ID, r.PathValue("id"), store.AgentPatch{
		ChatbotName: in.ChatbotName, Config: in.Config, Knowledge: in.Knowledge, KnowledgeLimits: a.bounds.Knowledge,
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.invalidator.Invalidate(ag.ID)
	a.writeAgent(w, r, ag, http.StatusOK)
}

// checkAgentConfig applies the config checker, if any: a refused config
// (an LLM endpoint on a private address) is a 400 with the reason.
func (a *API) checkAgentConfig(r *http.Request, config domain.AgentConfig) error {
	if a.checkConfig == nil {
		return nil
	}
	if err := a.checkConfig(r.Context(), config); err != nil {
		return domain.Invalid(err.Error())
	}
	return nil
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
	keys, err := a.store.Keys(r.Context(), ag.AccountID, ag.ID)
	if err != nil {
		return agentJSON{}, err
	}
	out := agentJSON{
		ID: ag.ID, ChatbotName: ag.ChatbotName, Config: ag.Config.Owner(), WidgetKey: newestActive(keys),
		CreatedAt: ag.CreatedAt, UpdatedAt: ag.UpdatedAt,
	}
	if detail {
		for _, k := range keys {
			out.WidgetKeys = append(out.WidgetKeys, toKeyJSON(k))
		}
		if out.Knowledge, err = a.store.Knowledge(r.Context(), ag.ID); err != nil {
			return agentJSON{}, err
		}
	}
	return out, nil
}

// CreateKey adds a widget key to an agent; older keys stay active until
// deactivated, so a site can switch without downtime.
func (a *API) CreateKey(w http.ResponseWriter, r *http.Request) {
	acc := account(r)
	k, err := a.store.CreateKey(r.Context(), acc.ID, r.PathValue("id"), secret.WidgetKey())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, toKeyJSON(k))
}

func (a *API) UpdateKey(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Active *bool `json:"active"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Active == nil {
		httpx.Error(w, r, domain.Invalid("active is required (true or false)"))
		return
	}
	k, err := a.store.SetKeyActive(r.Context(), account(r).ID, r.PathValue("key"), *in.Active)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toKeyJSON(k))
}
