package manageapi

import (
	"errors"
	"mime"
	"net/http"

	"parley/internal/agentadmin"
	"parley/internal/domain"
	"parley/internal/httpx"
)

// uploadMemory is how much of a multipart upload is held in memory; the
// rest of a file (up to agentadmin.MaxUpload) waits in a temporary file.
const uploadMemory = 1 << 20

func (a *API) ListKnowledge(w http.ResponseWriter, r *http.Request) {
	entries, err := a.agents.Knowledge(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"knowledge": entries})
}

// AddKnowledge adds an entry or a document. A document can be pasted in the
// JSON body ({"kind":"document","title":…,"text":…}) or uploaded as a
// multipart form with a "file" field (text, Markdown, HTML, PDF or DOCX,
// told apart by content; agentadmin.FileDocument) and optional "title" and
// "lang" fields.
func (a *API) AddKnowledge(w http.ResponseWriter, r *http.Request) {
	var e domain.KnowledgeEntry
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		e, err = uploadedDocument(w, r)
	} else {
		err = httpx.Decode(w, r, &e)
	}
	agentID := r.PathValue("id")
	if err == nil {
		e, err = a.agents.AddKnowledge(r.Context(), account(r).ID, agentID, e)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/agents/"+agentID+"/knowledge/"+e.ID)
	httpx.JSON(w, http.StatusCreated, e)
}

func uploadedDocument(w http.ResponseWriter, r *http.Request) (domain.KnowledgeEntry, error) {
	r.Body = http.MaxBytesReader(w, r.Body, agentadmin.MaxUpload+64<<10)
	if err := r.ParseMultipartForm(uploadMemory); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return domain.KnowledgeEntry{}, httpx.ErrTooLarge
		}
		return domain.KnowledgeEntry{}, domain.Invalid("the upload is not a valid multipart form")
	}
	defer r.MultipartForm.RemoveAll()
	f, hdr, err := r.FormFile("file")
	if err != nil {
		return domain.KnowledgeEntry{}, domain.Invalid(`the upload needs a "file" field`)
	}
	defer f.Close()
	return agentadmin.FileDocument(f, hdr.Filename, r.FormValue("title"), r.FormValue("lang"))
}

// UpdateKnowledge changes the fields sent; the others keep their values.
func (a *API) UpdateKnowledge(w http.ResponseWriter, r *http.Request) {
	var patch struct {
		Question *string `json:"question"`
		Answer   *string `json:"answer"`
		Title    *string `json:"title"`
		Text     *string `json:"text"`
		Lang     *string `json:"lang"`
	}
	if err := httpx.Decode(w, r, &patch); err != nil {
		httpx.Error(w, r, err)
		return
	}
	e, err := a.agents.UpdateKnowledge(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("item"), agentadmin.KnowledgePatch(patch))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, e)
}

func (a *API) DeleteKnowledge(w http.ResponseWriter, r *http.Request) {
	if err := a.agents.DeleteKnowledge(r.Context(), account(r).ID, r.PathValue("id"), r.PathValue("item")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
