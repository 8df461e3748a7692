package dashboard

import (
	"errors"
	"mime"
	"net/http"
	"unicode/utf8"

	"parley/internal/agentadmin"
)

// Limits of the agent forms. The name and knowledge items follow the
// rules both this and the management API apply (agentadmin), so what is
// saved here can also be sent there and the other way round.
const (
	// An upload's parts beyond this wait in temporary files.
	maxKnowledgeUpload = 1 << 20

	// The config's values have the bounds of domain.AgentConfig.Validate,
	// which the management API applies too.

	// Request bodies: small forms; the settings (long instructions,
	// URL-encoded); knowledge, where a document's 200,000 characters can
	// take 2.4 MB URL-encoded and an upload carries a file of up to
	// agentadmin.MaxUpload (10 MiB) too.
	maxSmallForm     = 64 << 10
	maxSettingsForm  = 1 << 20
	maxKnowledgeForm = agentadmin.MaxUpload + 4<<20

	defaultColor = "#2563eb" // the widget's colour when none is set
)

// withinChars reports whether s has at most n characters (code points,
// as the API counts them).
func withinChars(s string, n int) bool { return utf8.RuneCountInString(s) <= n }

// readAgentForm parses a POST form (URL-encoded or multipart) of at most limit
// bytes. On failure it returns the status and message key to show.
func readAgentForm(w http.ResponseWriter, r *http.Request, limit int64) (int, string) {
	r.Body = http.MaxBytesReader(w, unbound(r.Body), limit)
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		// Parts beyond this stay in temporary files, which net/http
		// removes when the handler returns.
		err = r.ParseMultipartForm(maxKnowledgeUpload)
	} else {
		err = r.ParseForm()
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, "agent.toolarge"
	case err != nil:
		return http.StatusBadRequest, "agent.invalid"
	}
	return 0, ""
}
