package manageapi

import (
	"net/http"
	"time"

	"parley/internal/audit"
	"parley/internal/canned"
	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/store"
)

// Canned replies and private notes (issue 19). The rules are package
// canned's; these handlers decode, call and encode.

// WithCanned serves the account's canned replies and the conversations'
// private notes through svc; without it the routes answer 404.
func (a *API) WithCanned(svc *canned.Service) *API {
	a.canned = svc
	return a
}

type cannedJSON struct {
	ID        string    `json:"id"`
	Shortcut  string    `json:"shortcut"`
	Language  string    `json:"language"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func toCannedJSON(c store.CannedReply) cannedJSON {
	return cannedJSON{ID: c.ID, Shortcut: c.Shortcut, Language: c.Language, Text: c.Text, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

type noteJSON struct {
	ID         string    `json:"id"`
	Text       string    `json:"text"`
	AuthorName string    `json:"author_name"`
	CreatedAt  time.Time `json:"created_at"`
}

func toNoteJSON(n store.Note) noteJSON {
	return noteJSON{ID: n.ID, Text: n.Text, AuthorName: n.AuthorName, CreatedAt: n.CreatedAt}
}

func (a *API) cannedOn(w http.ResponseWriter, r *http.Request) bool {
	if a.canned == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

type cannedInput struct {
	Shortcut string `json:"shortcut"`
	Language string `json:"language"`
	Text     string `json:"text"`
}

func (a *API) CreateCanned(w http.ResponseWriter, r *http.Request) {
	if !a.cannedOn(w, r) {
		return
	}
	var in cannedInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	c, err := a.canned.Create(r.Context(), account(r).ID, canned.Input(in))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/canned-replies/"+c.ID)
	httpx.JSON(w, http.StatusCreated, toCannedJSON(c))
}

func (a *API) ListCanned(w http.ResponseWriter, r *http.Request) {
	if !a.cannedOn(w, r) {
		return
	}
	list, err := a.canned.List(r.Context(), account(r).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]cannedJSON, 0, len(list))
	for _, c := range list {
		out = append(out, toCannedJSON(c))
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"canned_replies": out})
}

func (a *API) GetCanned(w http.ResponseWriter, r *http.Request) {
	if !a.cannedOn(w, r) {
		return
	}
	c, err := a.canned.Get(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toCannedJSON(c))
}

// UpdateCanned replaces the reply's fields (PUT semantics on PATCH: every
// field is required, as on create).
func (a *API) UpdateCanned(w http.ResponseWriter, r *http.Request) {
	if !a.cannedOn(w, r) {
		return
	}
	var in cannedInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	c, err := a.canned.Update(r.Context(), account(r).ID, r.PathValue("id"), canned.Input(in))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toCannedJSON(c))
}

func (a *API) DeleteCanned(w http.ResponseWriter, r *http.Request) {
	if !a.cannedOn(w, r) {
		return
	}
	if err := a.canned.Delete(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// notesConversation is the path's conversation, the account's (another
// account's is 404, like a missing one).
func (a *API) notesConversation(w http.ResponseWriter, r *http.Request) (string, bool) {
	if !a.cannedOn(w, r) {
		return "", false
	}
	conv, err := a.ownConversation(r)
	if err != nil {
		httpx.Error(w, r, err)
		return "", false
	}
	return conv.ID, true
}

func (a *API) ListNotes(w http.ResponseWriter, r *http.Request) {
	id, ok := a.notesConversation(w, r)
	if !ok {
		return
	}
	notes, err := a.canned.Notes(r.Context(), account(r).ID, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]noteJSON, 0, len(notes))
	for _, n := range notes {
		out = append(out, toNoteJSON(n))
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"notes": out})
}

// AddNote writes a private note as the request's API token.
func (a *API) AddNote(w http.ResponseWriter, r *http.Request) {
	id, ok := a.notesConversation(w, r)
	if !ok {
		return
	}
	var in struct {
		Text string `json:"text"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	act := audit.ActorOf(r.Context())
	n, err := a.canned.AddNote(r.Context(), account(r).ID, id, canned.Author{ID: act.ID, Name: act.Name}, in.Text)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, toNoteJSON(n))
}
