package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"parley/internal/domain"
	"parley/internal/outbound"
	"parley/internal/sources"
	"parley/internal/store"
)

// The agent page's "Website sources" section and each source's page. The
// rules are the sources service's (package sources); these handlers read
// forms, call it and say its refusals in the owner's language.

// sourcesView is the section: the agent's sources and the add form.
type sourcesView struct {
	AgentID string
	Rows    []sourceRow
	// Active: a source is queued or syncing, so the list refreshes itself
	// (app.js polls the fragment) until none is.
	Active  bool
	Form    sourceForm // the add form, as typed when it was refused
	Problem string     // the message key of the add form's refusal
	Args    []any      // its verbs' values
	Choices []everyChoice
	MaxPage int // the most pages a source may take in
}

type sourceForm struct{ URL, MaxPages, SyncEvery string }

// everyChoice is one re-sync schedule the add form offers.
type everyChoice struct{ Value, Key string }

// everyChoices are the schedules the form offers: the service takes any
// period of an hour or more, the API any of them; these cover what owners
// ask for. The default (domain.DefaultSyncEvery) is 24h.
var everyChoices = []everyChoice{
	{"0", "sources.every.off"},
	{"6h", "sources.every.6h"},
	{"12h", "sources.every.12h"},
	{"24h", "sources.every.24h"},
	{"168h", "sources.every.168h"},
}

// sourceRow is a source as the list and its page show it, its numbers and
// schedule in the page's language.
type sourceRow struct {
	domain.Source
	StatusKey string // "sources.status.ready"
	Active    bool   // queued or syncing
	Link      bool   // the URL is http(s), so it may be a link
	Pages     string // the page count, digits grouped
	Every     string // the schedule in words
	// ErrorText and NoteText are the last sync's error and note in the
	// page's language, or in the stored English when ErrorEnglish or
	// NoteEnglish (sourcereasons.go).
	ErrorText, NoteText       string
	ErrorEnglish, NoteEnglish bool
}

func statusKey(s domain.SourceStatus) string { return "sources.status." + string(s) }

func rowOf(src domain.Source, lang string) sourceRow {
	row := sourceRow{Source: src, StatusKey: statusKey(src.Status), Pages: groupDigits(src.Pages, lang),
		Active: src.Status == domain.SourceQueued || src.Status == domain.SourceSyncing,
		Link:   strings.HasPrefix(src.URL, "https://") || strings.HasPrefix(src.URL, "http://")}
	row.outcomeOf(src, lang)
	every := sources.FormatEvery(src.SyncEvery) // as the form's values are written
	for _, c := range everyChoices {
		if c.Value == every {
			row.Every = T(lang, c.Key)
			return row
		}
	}
	row.Every = fmt.Sprintf(T(lang, "sources.every.other"), every) // a period set through the API
	return row
}

// sourcesOf builds the section for the agent; nil when the instance
// serves no sources.
func (d *Dashboard) sourcesOf(r *http.Request, ag domain.Agent, form sourceForm) (*sourcesView, error) {
	if d.Sources == nil {
		return nil, nil
	}
	list, err := d.Sources.List(r.Context(), ag.AccountID, ag.ID)
	if err != nil {
		return nil, err
	}
	lang := language(r)
	v := &sourcesView{AgentID: ag.ID, Form: form, Choices: everyChoices, MaxPage: domain.MaxSourcePages}
	if v.Form.SyncEvery == "" {
		v.Form.SyncEvery = sources.FormatEvery(domain.DefaultSyncEvery)
	}
	if v.Form.MaxPages == "" {
		v.Form.MaxPages = strconv.Itoa(domain.DefaultMaxPages)
	}
	for _, src := range list {
		row := rowOf(src, lang)
		v.Active = v.Active || row.Active
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// SourcesList is the section's list alone, for the script that refreshes
// it while a sync runs.
func (d *Dashboard) SourcesList(w http.ResponseWriter, r *http.Request) {
	ag, err := d.agent(r)
	if err == nil && d.Sources == nil {
		err = domain.ErrNotFound
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	v, err := d.sourcesOf(r, ag, sourceForm{})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.renderPartial(w, r, "agent", "sources-list", agentData{Agent: ag, Sources: v})
}

// AddSource adds a website source; its first sync starts at once.
func (d *Dashboard) AddSource(w http.ResponseWriter, r *http.Request) {
	if d.Sources == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	if status, key := readAgentForm(w, r, maxSmallForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	form := sourceForm{URL: r.PostFormValue("url"), MaxPages: strings.TrimSpace(r.PostFormValue("max_pages")), SyncEvery: r.PostFormValue("sync_every")}
	n := sources.NewSource{Kind: string(domain.SourceWebsite), URL: form.URL}
	if form.SyncEvery != "" {
		n.SyncEvery = &form.SyncEvery
	}
	var err error
	if form.MaxPages != "" {
		pages, convErr := strconv.Atoi(form.MaxPages)
		n.MaxPages = &pages
		if convErr != nil {
			// Not a number: the service's words for a count out of range.
			err = &sources.InputError{Problem: sources.ProblemMaxPages, Msg: convErr.Error()}
		}
	}
	id := r.PathValue("id")
	if err == nil {
		_, err = d.Sources.Create(r.Context(), user(r).AccountID, id, n)
	}
	if key, args := sourceRefusal(err, language(r)); key != "" {
		d.showAgent(w, r, http.StatusBadRequest, agentData{sourceForm: form, sourceProblem: key, sourceArgs: args}, "")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=sources.added#sources", http.StatusSeeOther)
}

// sourceRefusal is the message key and its values for the service's
// refusal of a new source; "" for any other error and nil.
func sourceRefusal(err error, lang string) (string, []any) {
	var ie *sources.InputError
	if !errors.As(err, &ie) {
		return "", nil
	}
	key := "sources.problem." + string(ie.Problem)
	switch ie.Problem {
	case sources.ProblemURLRefused:
		var refused *outbound.Refusal
		if errors.As(ie.Err, &refused) {
			target := refused.Addr.String()
			if refused.Host != "" {
				target = refused.Host + " (" + target + ")"
			}
			return key, []any{target, T(lang, "outbound."+refused.Class.Key())}
		}
	case sources.ProblemMaxPages:
		return key, []any{domain.MaxSourcePages}
	case sources.ProblemTooMany:
		return key, []any{sources.MaxSourcesPerAgent}
	}
	return key, nil
}

// SyncSource starts a sync of the source now.
func (d *Dashboard) SyncSource(w http.ResponseWriter, r *http.Request) {
	if d.Sources == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	id, sid := r.PathValue("id"), r.PathValue("sid")
	if _, err := d.Sources.SyncNow(r.Context(), user(r).AccountID, id, sid); err != nil {
		d.fail(w, r, err)
		return
	}
	back := "/agents/" + id + "?flash=sources.syncing#src-" + sid
	if r.PostFormValue("back") == "source" {
		back = "/agents/" + id + "/sources/" + sid + "?flash=sources.syncing"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// DeleteSource removes the source once the owner confirmed it: the
// script asks first and sends confirmed=1; without the script the
// source's page asks, with a form that sends it.
func (d *Dashboard) DeleteSource(w http.ResponseWriter, r *http.Request) {
	if d.Sources == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	acc, id, sid := user(r).AccountID, r.PathValue("id"), r.PathValue("sid")
	if r.PostFormValue("confirmed") != "1" {
		d.showSource(w, r, true)
		return
	}
	if err := d.Sources.Delete(r.Context(), acc, id, sid); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=sources.removed#sources", http.StatusSeeOther)
}

// sourceData is a source's page: what it is and the pages it took in.
type sourceData struct {
	Agent   domain.Agent
	Source  sourceRow
	Pages   []pageRow
	Confirm bool // ask whether to remove it
}

type pageRow struct {
	store.SourcePageInfo
	Link  bool   // the URL is http(s)
	Chars string // its size, digits grouped
}

// Source shows a source and the pages its last sync took in.
func (d *Dashboard) Source(w http.ResponseWriter, r *http.Request) { d.showSource(w, r, false) }

func (d *Dashboard) showSource(w http.ResponseWriter, r *http.Request, confirm bool) {
	if d.Sources == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	src, err := d.Sources.Get(r.Context(), ag.AccountID, ag.ID, r.PathValue("sid"))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	lang := language(r)
	data := sourceData{Agent: ag, Source: rowOf(src, lang), Confirm: confirm}
	// The script refreshes the facts while a sync runs, and the pages
	// once it has ended (app.js, data-poll); the facts alone need no
	// pages read.
	part := r.URL.Query().Get("part")
	if part == "facts" && !confirm {
		d.renderPartial(w, r, "source", "source-facts", data)
		return
	}
	pages, err := d.Sources.Pages(r.Context(), ag.AccountID, ag.ID, src.ID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for _, p := range pages {
		data.Pages = append(data.Pages, pageRow{SourcePageInfo: p, Chars: groupDigits(p.Chars, lang),
			Link: strings.HasPrefix(p.URL, "https://") || strings.HasPrefix(p.URL, "http://")})
	}
	if part == "pages" && !confirm {
		d.renderPartial(w, r, "source", "source-pages", data)
		return
	}
	d.render(w, r, http.StatusOK, "source", view{Title: "sources.pagetitle", Nav: "agents", Data: data})
}
