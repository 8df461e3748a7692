package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"parley/internal/agentadmin"
	"parley/internal/domain"
)

// settingsForm is the settings form's fields, read from an agent's config
// or from a submitted form. The LLM's and the embeddings' API keys are not
// among them: they are never shown, only whether one is set.
type settingsForm struct {
	Name         string
	Greeting     string
	Color        string // the picker: always #rrggbb
	ColorText    string // typed hex code; wins over the picker
	Position     string // "right" or "left"
	Lang         string // "", "en", "ro" or "ru"
	LauncherText string
	QuickReplies string // one per line
	Handoff      bool
	HandoffMsg   string            // for every language
	HandoffLang  map[string]string // per language
	Instructions string
	Provider     string
	BaseURL      string
	Model        string
	KeySet       bool // an LLM API key is stored
	// The embeddings backend for hybrid retrieval ("embed").
	EmbedBaseURL string
	EmbedModel   string
	EmbedKeySet  bool // an embeddings API key is stored
	Limits       limitsForm
	// The sites that may use the widget ("allowed_origins"), one per line,
	// and whether a request must name its site ("require_origin").
	Origins       string
	RequireOrigin bool
	// Whether init refuses visitors without a verified identity
	// ("require_identity").
	RequireIdentity bool
}

// endpointFields are one backend's URL, model and API key inputs on the
// settings form, the LLM's or the embeddings', drawn by the agent page's
// "endpoint-fields" template: the two differ only in their ids, names and
// values.
type endpointFields struct {
	Lang           string // the page's language
	ID, Name       string // prefixes of the inputs' ids and form names
	Hint, KeyState string // ids of the hint and of the key's state line
	Clear          string // the "remove the stored key" box's name
	BaseURL, Model string
	KeySet         bool
}

// LLMFields are the LLM endpoint's inputs.
func (f settingsForm) LLMFields(lang string) endpointFields {
	return endpointFields{Lang: lang, Hint: "llm-hint", KeyState: "api-key-state", Clear: "clear_key",
		BaseURL: f.BaseURL, Model: f.Model, KeySet: f.KeySet}
}

// EmbedFields are the embeddings endpoint's inputs.
func (f settingsForm) EmbedFields(lang string) endpointFields {
	return endpointFields{Lang: lang, ID: "embed-", Name: "embed_", Hint: "embed-hint", KeyState: "embed-key-state", Clear: "clear_embed_key",
		BaseURL: f.EmbedBaseURL, Model: f.EmbedModel, KeySet: f.EmbedKeySet}
}

// formKeys are the API keys the settings form sends: a typed key replaces
// the stored one, a blank one keeps it unless its "remove" box is ticked.
type formKeys struct {
	LLM, Embed           string
	ClearLLM, ClearEmbed bool
}

func keysFrom(r *http.Request) formKeys {
	return formKeys{
		LLM: strings.TrimSpace(r.PostFormValue("api_key")), ClearLLM: r.PostFormValue("clear_key") != "",
		Embed: strings.TrimSpace(r.PostFormValue("embed_api_key")), ClearEmbed: r.PostFormValue("clear_embed_key") != "",
	}
}

// setKey applies one of the form's keys to the stored one.
func setKey(stored **string, typed string, clear bool) {
	switch {
	case typed != "":
		*stored = &typed
	case clear:
		*stored = nil
	}
}

func settingsOf(ag domain.Agent) settingsForm {
	c := ag.Config
	f := settingsForm{
		Name: ag.ChatbotName, Greeting: c.Greeting, Position: "right", Lang: c.Lang,
		LauncherText: c.LauncherText, Instructions: c.Instructions, Color: defaultColor, Handoff: c.Handoff.On(),
	}
	if col := c.Color; domain.IsHexColor(col) {
		if len(col) == 7 {
			f.Color = strings.ToLower(col) // type=color only takes lower case #rrggbb
		} else {
			f.ColorText = col
		}
	}
	if c.Position == "left" {
		f.Position = "left"
	}
	f.QuickReplies = strings.Join(c.QuickReplies, "\n")
	f.HandoffMsg = c.Handoff.Message
	if perLang := c.Handoff.Messages; len(perLang) > 0 {
		f.HandoffMsg = perLang[""]
		f.HandoffLang = map[string]string{}
		for _, l := range languages {
			f.HandoffLang[l] = perLang[l]
		}
	}
	f.Provider, f.BaseURL, f.Model = c.LLM.Provider, c.LLM.BaseURL, c.LLM.Model
	f.KeySet = c.LLM.APIKey != nil
	f.EmbedBaseURL, f.EmbedModel, f.EmbedKeySet = c.Embed.BaseURL, c.Embed.Model, c.Embed.APIKey != nil
	f.Limits = limitsOf(c.Limits)
	f.Origins = strings.Join(c.AllowedOrigins, "\n")
	f.RequireOrigin = c.RequireOrigin != nil && *c.RequireOrigin
	f.RequireIdentity = c.RequireIdentity != nil && *c.RequireIdentity
	return f
}

// settingsFrom reads the submitted settings form, trimmed.
func settingsFrom(r *http.Request) settingsForm {
	v := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	f := settingsForm{
		Name: v("name"), Greeting: v("greeting"), Color: strings.ToLower(v("color")), ColorText: v("color_text"),
		Position: v("position"), Lang: v("lang"), LauncherText: v("launcher_text"), QuickReplies: v("quick_replies"),
		Handoff: r.PostFormValue("handoff") != "", HandoffMsg: v("handoff_message"), HandoffLang: map[string]string{},
		Instructions: v("instructions"), Provider: v("provider"), BaseURL: v("base_url"), Model: v("model"),
		EmbedBaseURL: v("embed_base_url"), EmbedModel: v("embed_model"),
	}
	for _, l := range languages {
		f.HandoffLang[l] = v("handoff_message_" + l)
	}
	f.Limits = limitsFrom(r)
	f.Origins, f.RequireOrigin = v("allowed_origins"), r.PostFormValue("require_origin") != ""
	f.RequireIdentity = r.PostFormValue("require_identity") != ""
	return f
}

// config lays the form over the previous config and checks the result
// with the rule the management API applies (domain.AgentConfig.Validate):
// members the form does not edit are kept, and so are the stored LLM and
// embeddings API keys unless a new one is typed or its removal asked for
// (keys). It returns a message key when the form is invalid.
//
// prev is shared with the store's copy: fields are assigned, never the
// maps and slices it holds written into.
func (f settingsForm) config(prev domain.AgentConfig, keys formKeys) (domain.AgentConfig, string) {
	c := prev.Detached() // the form edits every member Parley reads
	c.Greeting, c.LauncherText, c.Instructions = f.Greeting, f.LauncherText, f.Instructions
	c.Position, c.Lang = f.Position, f.Lang
	if f.Position != "right" && f.Position != "left" {
		return c, "agent.invalid" // only a tampered form sends another
	}

	switch color := f.Color; {
	case f.ColorText != "":
		c.Color = f.ColorText // Validate checks it
	case !domain.IsHexColor(color) || len(color) != 7:
		return c, "agent.color.invalid"
	case color == defaultColor && prev.Color == "":
		// The picker always sends a colour; the default one untouched is
		// not a choice worth writing into the config.
	default:
		c.Color = color
	}

	c.QuickReplies = nil
	for _, line := range strings.Split(f.QuickReplies, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			c.QuickReplies = append(c.QuickReplies, line)
		}
	}

	// handoff: "enabled" always written, so turning it off is explicit;
	// per-language messages as an object where languages without their own
	// text get the one for all languages, else a single text.
	if !withinChars(f.HandoffMsg, domain.MaxGreeting) {
		return c, "agent.text.long" // checked here: it may only fill the gaps
	}
	h := prev.Handoff
	on := f.Handoff
	h.Enabled, h.Message, h.Messages = &on, f.HandoffMsg, nil
	for l, m := range f.HandoffLang {
		if m != "" {
			if h.Messages == nil {
				h.Messages = map[string]string{}
			}
			h.Messages[l] = m
		}
	}
	if h.Messages != nil {
		for _, l := range languages {
			if h.Messages[l] == "" && f.HandoffMsg != "" {
				h.Messages[l] = f.HandoffMsg
			}
		}
		h.Message = ""
	}
	c.Handoff = h

	c.LLM.Provider, c.LLM.BaseURL, c.LLM.Model = f.Provider, f.BaseURL, f.Model
	setKey(&c.LLM.APIKey, keys.LLM, keys.ClearLLM)
	c.Embed.BaseURL, c.Embed.Model = f.EmbedBaseURL, f.EmbedModel
	setKey(&c.Embed.APIKey, keys.Embed, keys.ClearEmbed)
	if key := f.Limits.apply(&c); key != "" {
		return c, key
	}
	// Origins: one per line, blank lines skipped; none is any site.
	// require_origin is written only when ticked: unset is false.
	c.AllowedOrigins, c.RequireOrigin = nil, nil
	for _, line := range strings.Split(f.Origins, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			c.AllowedOrigins = append(c.AllowedOrigins, line)
		}
	}
	if f.RequireOrigin {
		on := true
		c.RequireOrigin = &on
	}
	// require_identity, like require_origin, is written only when ticked.
	c.RequireIdentity = nil
	if f.RequireIdentity {
		on := true
		c.RequireIdentity = &on
	}
	if err := c.Validate(); err != nil {
		return c, configMessage(err)
	}
	return c, ""
}

// configMessage is the message key for a config Validate refuses.
func configMessage(err error) string {
	var ce *domain.ConfigError
	if !errors.As(err, &ce) {
		return "agent.invalid"
	}
	switch top, _, _ := strings.Cut(ce.Field, "."); top {
	case domain.ConfigGreeting, domain.ConfigLauncherText, domain.ConfigHandoff:
		return "agent.text.long"
	case domain.ConfigInstructions:
		return "agent.instr.long"
	case domain.ConfigColor:
		return "agent.color.invalid"
	case domain.ConfigQuickReplies:
		return "agent.quick.invalid"
	case domain.ConfigLLM:
		return "agent.llm.invalid"
	case domain.ConfigEmbed:
		return "agent.embed.invalid"
	case domain.ConfigLimits:
		return "agent.limits.invalid"
	case domain.ConfigAllowedOrigins:
		return "agent.origins.invalid"
	}
	return "agent.invalid" // position, lang: only a tampered form sends these
}

// UpdateAgent saves the settings form: the name and the config.
func (d *Dashboard) UpdateAgent(w http.ResponseWriter, r *http.Request) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxSettingsForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	f := settingsFrom(r)
	stored := settingsOf(ag)
	f.KeySet, f.EmbedKeySet = stored.KeySet, stored.EmbedKeySet
	invalid := func(key string) {
		d.showAgent(w, r, http.StatusBadRequest, agentData{Settings: f, settingsTyped: true}, key)
	}
	// The name is reported before the form's other fields.
	if _, err := agentadmin.CheckName(f.Name); err != nil {
		invalid("agent.name.invalid")
		return
	}
	cfg, key := f.config(ag.Config, keysFrom(r))
	if key != "" {
		invalid(key)
		return
	}
	_, err = d.AgentAdmin.UpdateAgent(r.Context(), ag.AccountID, ag.ID, agentadmin.AgentChange{Name: &f.Name, Config: cfg.JSON()})
	if refused, key := configRefusal(err); key != "" || refused != nil {
		d.showAgent(w, r, http.StatusBadRequest, agentData{Settings: f, settingsTyped: true, Refused: refused}, key)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=agent.saved#settings", http.StatusSeeOther)
}
