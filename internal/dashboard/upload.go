package dashboard

import (
	"errors"
	"io"
	"net/http"
	"parley/internal/domain"
	"strings"
	"unicode/utf8"
)

// uploadedDocument puts an uploaded file's text into the document e, if a
// file was chosen. It returns a status and message key when the file is
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
	body, err := io.ReadAll(io.LimitReader(f, maxKnowledgeUpload+1))
	switch {
	case err != nil:
		return http.StatusBadRequest, "agent.invalid"
	case len(body) > maxKnowledgeUpload:
		return http.StatusRequestEntityTooLarge, "kb.doc.large"
	case !utf8.Valid(body):
		return http.StatusBadRequest, "kb.doc.utf8"
	}
	e.Text = string(body)
	if strings.TrimSpace(e.Title) == "" {
		e.Title = strings.TrimSuffix(strings.TrimSuffix(hdr.Filename, ".md"), ".txt")
	}
	return 0, ""
}
