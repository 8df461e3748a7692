package dashboard

import (
	"errors"
	"net/http"

	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/domain"
	"parley/internal/store"
	"parley/web/i18n"
)

// Canned replies and private notes (issue 19). The rules are package
// canned's; owners manage the replies on /canned, every operator sees
// them there and uses them in the reply box ("/refund" then Tab or
// Enter), and writes notes on the conversation page.

// maxCannedForm bounds a canned reply's or a note's form: 2,000
// characters of up to 4 bytes, URL-encoded, with room for the rest.
const maxCannedForm = 32 << 10

type cannedData struct {
	Replies []store.CannedReply
	Draft   canned.Input
	Edit    string // the id of the reply whose form shows the draft
	Max     int
}

func (d *Dashboard) cannedOn(w http.ResponseWriter, r *http.Request) bool {
	if d.Canned == nil {
		d.fail(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

// CannedPage lists the account's canned replies; owners get the forms.
func (d *Dashboard) CannedPage(w http.ResponseWriter, r *http.Request) {
	if !d.cannedOn(w, r) {
		return
	}
	d.showCanned(w, r, http.StatusOK, cannedData{}, "", r.URL.Query().Get("done"))
}

func (d *Dashboard) showCanned(w http.ResponseWriter, r *http.Request, code int, data cannedData, errKey, flash string) {
	list, err := d.Canned.List(r.Context(), user(r).AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	data.Replies, data.Max = list, store.MaxCannedReplies
	switch flash {
	case "created", "updated", "deleted":
		flash = "canned." + flash
	default:
		flash = ""
	}
	d.render(w, r, code, "canned", view{Title: "canned.title", Nav: "canned", Error: errKey, Flash: flash, Data: data})
}

// cannedErr names a refused reply's error for the page.
func cannedErr(err error) (int, string) {
	switch {
	case errors.Is(err, canned.ErrShortcut):
		return http.StatusBadRequest, "canned.err.shortcut"
	case errors.Is(err, canned.ErrLanguage):
		return http.StatusBadRequest, "canned.err.language"
	case errors.Is(err, canned.ErrText):
		return http.StatusBadRequest, "canned.err.text"
	case errors.Is(err, store.ErrCannedLimit):
		return http.StatusBadRequest, "canned.err.limit"
	case errors.Is(err, domain.ErrConflict):
		return http.StatusConflict, "canned.err.taken"
	}
	return 0, ""
}

func (d *Dashboard) saveCanned(w http.ResponseWriter, r *http.Request, id string) {
	if !d.cannedOn(w, r) {
		return
	}
	if status, key := readForm(w, r, maxCannedForm); key != "" {
		d.showCanned(w, r, status, cannedData{}, key, "")
		return
	}
	u := user(r)
	in := canned.Input{Shortcut: r.PostFormValue("shortcut"), Language: r.PostFormValue("language"), Text: r.PostFormValue("text")}
	ctx := audit.WithActor(r.Context(), d.actor(r, u))
	var err error
	done := "created"
	if id == "" {
		_, err = d.Canned.Create(ctx, u.AccountID, in)
	} else {
		_, err = d.Canned.Update(ctx, u.AccountID, id, in)
		done = "updated"
	}
	if status, key := cannedErr(err); key != "" {
		d.showCanned(w, r, status, cannedData{Draft: in, Edit: id}, key, "")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/canned?done="+done, http.StatusSeeOther)
}

func (d *Dashboard) CreateCanned(w http.ResponseWriter, r *http.Request) { d.saveCanned(w, r, "") }

func (d *Dashboard) UpdateCanned(w http.ResponseWriter, r *http.Request) {
	d.saveCanned(w, r, r.PathValue("id"))
}

func (d *Dashboard) DeleteCanned(w http.ResponseWriter, r *http.Request) {
	if !d.cannedOn(w, r) {
		return
	}
	u := user(r)
	if err := d.Canned.Delete(audit.WithActor(r.Context(), d.actor(r, u)), u.AccountID, r.PathValue("id")); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/canned?done=deleted", http.StatusSeeOther)
}

// AddNote writes the team's private note on the conversation.
func (d *Dashboard) AddNote(w http.ResponseWriter, r *http.Request) {
	if !d.cannedOn(w, r) {
		return
	}
	if status, key := readForm(w, r, maxCannedForm); key != "" {
		d.showConversation(w, r, status, conversationData{}, key)
		return
	}
	u := user(r)
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	text := r.PostFormValue("note")
	ctx := audit.WithActor(r.Context(), d.actor(r, u))
	_, err = d.Canned.AddNote(ctx, u.AccountID, c.ID, canned.Author{ID: u.ID, Name: displayName(u)}, text)
	var invalid *domain.InvalidError
	if errors.As(err, &invalid) {
		d.showConversation(w, r, http.StatusBadRequest, conversationData{NoteDraft: text}, "conv.noteerr")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/conversations/"+c.ID+"#notes", http.StatusSeeOther)
}

func displayName(u domain.User) string {
	if u.Name != "" {
		return u.Name
	}
	return u.Email
}

// deskExtras loads what the conversation page shows of canned replies and
// notes: the notes, and the replies picked for the visitor's language
// with their variables filled (the reply box expands them). The visitor's
// language is the agent's configured one ("" picks "any", then English).
func (d *Dashboard) deskExtras(r *http.Request, data *conversationData, ag domain.Agent) error {
	if d.Canned == nil {
		return nil
	}
	c, u := data.Conv, user(r)
	var err error
	if data.Notes, err = d.Canned.Notes(r.Context(), c.AccountID, c.ID); err != nil {
		return err
	}
	data.Canned, err = d.Canned.Suggestions(r.Context(), c.AccountID, ag.Config.Lang, canned.Vars{
		VisitorName: c.Name, VisitorEmail: c.Email, OperatorName: displayName(u), AgentName: ag.ChatbotName,
	})
	data.DeskOn = true
	return err
}

// cannedFormData is one canned reply form's fields.
type cannedFormData struct {
	Lang, ID, Shortcut, Language, Text string
}

func cannedForm(lang, id, shortcut, language, text string) cannedFormData {
	if language == "" {
		language = canned.AnyLanguage
	}
	return cannedFormData{Lang: lang, ID: id, Shortcut: shortcut, Language: language, Text: text}
}

// cannedLanguages are the form's choices.
var cannedLanguages = append([]string{canned.AnyLanguage}, i18n.Languages...)
