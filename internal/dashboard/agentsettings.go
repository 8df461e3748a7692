package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"parley/internal/agentadmin"
	"parley/internal/domain"
	"strings"
)

// settingsForm is the settings form's fields, read from an agent's config
// or from a submitted form. The LLM API key is not among them: it is never
// shown, only whether one is set.
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
	Limits       limitsForm
}

// configObject is a JSON object whose members are kept as they are, so keys
// the dashboard does not edit survive a save (the API documents that
// Parley keeps any keys it does not read).
type configObject map[string]json.RawMessage

func decodeConfigObject(raw json.RawMessage) configObject {
	var o configObject
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return configObject{}
	}
	return o
}

// str reads a string member; values of another type read as "", as the
// widget and the chat ignore them too.
func (o configObject) str(k string) string {
	var s string
	_ = json.Unmarshal(o[k], &s)
	return s
}

// setStr stores a string member, or removes it when empty (the default).
func (o configObject) setStr(k, v string) {
	if v == "" {
		delete(o, k)
		return
	}
	o[k], _ = json.Marshal(v) // a string always encodes
}

func settingsOf(ag domain.Agent) settingsForm {
	c := decodeConfigObject(ag.Config)
	f := settingsForm{
		Name: ag.ChatbotName, Greeting: c.str("greeting"), Position: "right", Lang: c.str("lang"),
		LauncherText: c.str("launcher_text"), Instructions: c.str("instructions"), Color: defaultColor, Handoff: true,
	}
	if col := c.str("color"); hexColor.MatchString(col) {
		if len(col) == 7 {
			f.Color = strings.ToLower(col) // type=color only takes lower case #rrggbb
		} else {
			f.ColorText = col
		}
	}
	if c.str("position") == "left" {
		f.Position = "left"
	}
	var quick []string
	_ = json.Unmarshal(c["quick_replies"], &quick)
	f.QuickReplies = strings.Join(quick, "\n")
	h := decodeConfigObject(c["handoff"])
	var on bool
	if json.Unmarshal(h["enabled"], &on) == nil {
		f.Handoff = on
	}
	f.HandoffMsg = h.str("message")
	if perLang := decodeConfigObject(h["message"]); len(perLang) > 0 {
		f.HandoffMsg = perLang.str("")
		f.HandoffLang = map[string]string{}
		for _, l := range languages {
			f.HandoffLang[l] = perLang.str(l)
		}
	}
	llm := decodeConfigObject(c["llm"])
	f.Provider, f.BaseURL, f.Model = llm.str("provider"), llm.str("base_url"), llm.str("model")
	_, f.KeySet = llm["api_key"]
	f.Limits = limitsOf(c)
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
	}
	for _, l := range languages {
		f.HandoffLang[l] = v("handoff_message_" + l)
	}
	f.Limits = limitsFrom(r)
	return f
}

// config checks the form and lays it over the previous config: keys the
// form does not edit are kept, and so is the stored LLM API key unless a
// new one is typed (apiKey) or clearKey asks to remove it. It returns a
// message key when the form is invalid.
func (f settingsForm) config(prev json.RawMessage, apiKey string, clearKey bool) (json.RawMessage, string) {
	long := func(s string, n int) bool { return !withinChars(s, n) }
	c := decodeConfigObject(prev)
	switch {
	case long(f.Greeting, maxGreeting), long(f.LauncherText, maxLauncherText), long(f.HandoffMsg, maxGreeting):
		return nil, "agent.text.long"
	case long(f.Instructions, maxInstructions):
		return nil, "agent.instr.long"
	case f.Position != "right" && f.Position != "left", f.Lang != "" && !known(f.Lang):
		return nil, "agent.invalid" // only a tampered form sends these
	}
	c.setStr("greeting", f.Greeting)
	c.setStr("launcher_text", f.LauncherText)
	c.setStr("position", f.Position)
	c.setStr("lang", f.Lang)
	c.setStr("instructions", f.Instructions)

	switch color := f.Color; {
	case f.ColorText != "":
		if !hexColor.MatchString(f.ColorText) {
			return nil, "agent.color.invalid"
		}
		c.setStr("color", f.ColorText)
	case !hexColor.MatchString(color) || len(color) != 7:
		return nil, "agent.color.invalid"
	case color == defaultColor && c["color"] == nil:
		// The picker always sends a colour; the default one untouched is
		// not a choice worth writing into the config.
	default:
		c.setStr("color", color)
	}

	quick := []string{}
	for _, line := range strings.Split(f.QuickReplies, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			quick = append(quick, line)
		}
	}
	if len(quick) > maxQuickReplies {
		return nil, "agent.quick.invalid"
	}
	for _, q := range quick {
		if long(q, maxQuickReply) {
			return nil, "agent.quick.invalid"
		}
	}
	if len(quick) == 0 {
		delete(c, "quick_replies")
	} else {
		c["quick_replies"], _ = json.Marshal(quick)
	}

	// handoff: "enabled" always written, so turning it off is explicit;
	// per-language messages as an object where languages without their own
	// text get the one for all languages, else a single text.
	h := decodeConfigObject(c["handoff"])
	h["enabled"], _ = json.Marshal(f.Handoff)
	perLang := map[string]string{}
	for l, m := range f.HandoffLang {
		if long(m, maxGreeting) {
			return nil, "agent.text.long"
		}
		if m != "" {
			perLang[l] = m
		}
	}
	switch {
	case len(perLang) > 0:
		for _, l := range languages {
			if perLang[l] == "" && f.HandoffMsg != "" {
				perLang[l] = f.HandoffMsg
			}
		}
		h["message"], _ = json.Marshal(perLang)
	default:
		h.setStr("message", f.HandoffMsg)
	}
	c["handoff"], _ = json.Marshal(h)

	llm := decodeConfigObject(c["llm"])
	if long(f.Provider, maxLLMField) || long(f.Model, maxLLMField) || long(apiKey, maxLLMField) || long(f.BaseURL, maxLLMField) {
		return nil, "agent.llm.invalid"
	}
	if f.BaseURL != "" {
		u, err := url.Parse(f.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, "agent.llm.invalid"
		}
	}
	llm.setStr("provider", f.Provider)
	llm.setStr("base_url", f.BaseURL)
	llm.setStr("model", f.Model)
	delete(llm, "api_key_set") // the API's read-only marker, never stored
	switch {
	case apiKey != "":
		llm.setStr("api_key", apiKey)
	case clearKey:
		delete(llm, "api_key")
	}
	if len(llm) == 0 {
		delete(c, "llm")
	} else {
		c["llm"], _ = json.Marshal(llm)
	}
	if key := f.Limits.apply(c); key != "" {
		return nil, key
	}
	out, _ := json.Marshal(c) // re-encoding decoded JSON cannot fail
	return out, ""
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
	f.KeySet = settingsOf(ag).KeySet
	invalid := func(key string) {
		d.showAgent(w, r, http.StatusBadRequest, agentData{Settings: f, settingsTyped: true}, key)
	}
	// The name is reported before the form's other fields.
	if _, err := agentadmin.CheckName(f.Name); err != nil {
		invalid("agent.name.invalid")
		return
	}
	cfg, key := f.config(ag.Config, strings.TrimSpace(r.PostFormValue("api_key")), r.PostFormValue("clear_key") != "")
	if key != "" {
		invalid(key)
		return
	}
	_, err = d.AgentAdmin.UpdateAgent(r.Context(), ag.AccountID, ag.ID, agentadmin.AgentChange{Name: &f.Name, Config: cfg})
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
