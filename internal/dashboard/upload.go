package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"parley/internal/agentadmin"
	"parley/internal/domain"
)

// uploadedDocument puts an uploaded file's text into the document e, if a
// file was chosen (the API's function: agentadmin.FileDocument). It returns a status and message key when the file is
// refused.
func uploadedDocument(r *http.Request, e *domain.KnowledgeEntry) (int, string) {
	if r.MultipartForm == nil {
		return 0, ""
	}
	f, hdr, err := r.FormFile("file")
	if errors.Is(err, http.ErrMissingFile) {
		return 0, "" // an empty file input sends no file
	}
	if err != nil {
		return http.StatusBadRequest, "agent.invalid"
	}
	defer f.Close()
	if strings.TrimSpace(e.Text) != "" {
		return http.StatusBadRequest, "kb.doc.both"
	}
	doc, err := agentadmin.FileDocument(f, hdr.Filename, e.Title, e.Lang)
	if err != nil {
		if status, key := knowledgeRefusal(err); key != "" {
			return status, key
		}
		return http.StatusBadRequest, "agent.invalid"
	}
	*e = doc
	return 0, ""
}
