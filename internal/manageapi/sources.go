package manageapi

import (
	"net/http"
	"time"

	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/sources"
)

// sourceJSON is a website source as the API shows it. synced_at and
// next_sync_at are null for never.
type sourceJSON struct {
	ID         string     `json:"id"`
	Kind       string     `json:"kind"`
	URL        string     `json:"url"`
	Status     string     `json:"status"`
	Pages      int        `json:"pages"`
	Error      string     `json:"error"`
	Note       string     `json:"note"`
	Chars      int        `json:"chars"`
	MaxPages   int        `json:"max_pages"`
	SyncEvery  string     `json:"sync_every"`
	SyncedAt   *time.Time `json:"synced_at"`
	NextSyncAt *time.Time `json:"next_sync_at"`
	CreatedAt  time.Time  `json:"created_at"`
}

func toSourceJSON(s domain.Source) sourceJSON {
	opt := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	return sourceJSON{
		ID: s.ID, Kind: string(s.Kind), URL: s.URL, Status: string(s.Status), Pages: s.Pages, Error: s.Error, Note: s.Note,
		Chars: s.Chars, MaxPages: s.MaxPages, SyncEvery: sources.FormatEvery(s.SyncEvery),
		SyncedAt: opt(s.SyncedAt), NextSyncAt: opt(s.NextSyncAt), CreatedAt: s.CreatedAt,
	}
}

// sourceInput is the body of a create.
type sourceInput struct {
	Kind      string  `json:"kind"`
	URL       string  `json:"url"`
	MaxPages  *int    `json:"max_pages"`
	SyncEvery *string `json:"sync_every"`
}

// sourcesOn answers 404 when the instance serves no sources.
func (a *API) sourcesOn(w http.ResponseWriter, r *http.Request) bool {
	if a.sources == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return false
	}
	return true
}

func (a *API) CreateSource(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	var in sourceInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	agentID := r.PathValue("id")
	src, err := a.sources.Create(r.Context(), account(r).ID, agentID, sources.NewSource{
		Kind: in.Kind, URL: in.URL, MaxPages: in.MaxPages, SyncEvery: in.SyncEvery,
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/agents/"+agentID+"/sources/"+src.ID)
	httpx.JSON(w, http.StatusCreated, toSourceJSON(src))
}

func (a *API) ListSources(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	list, err := a.sources.List(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]sourceJSON, 0, len(list))
	for _, s := range list {
		out = append(out, toSourceJSON(s))
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"sources": out})
}

func (a *API) GetSource(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	src, err := a.sources.Get(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("sid"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toSourceJSON(src))
}

func (a *API) SyncSource(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	src, err := a.sources.SyncNow(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("sid"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusAccepted, toSourceJSON(src))
}

func (a *API) DeleteSource(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	if err := a.sources.Delete(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("sid")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sourcePageJSON is a page a source's sync took in.
type sourcePageJSON struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
	Chars int    `json:"chars"`
}

func (a *API) SourcePages(w http.ResponseWriter, r *http.Request) {
	if !a.sourcesOn(w, r) {
		return
	}
	pages, err := a.sources.Pages(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("sid"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]sourcePageJSON, 0, len(pages))
	for _, p := range pages {
		out = append(out, sourcePageJSON{ID: p.ID, URL: p.URL, Title: p.Title, Chars: p.Chars})
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"pages": out})
}
