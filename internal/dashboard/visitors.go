package dashboard

import (
	"encoding/json"
	"net/http"
	"strings"

	"parley/internal/privacy"
)

// The privacy requests of issue 18 on a conversation page: export and
// erase everything stored about the conversation's visitor in the
// account. Owners only (the data of every conversation of the visitor,
// not just this one, and an erasure for good). The rule and the JSON are
// internal/privacy's, as for GET /api/v1/visitors/{id}/export and DELETE
// /api/v1/visitors/{id}.

func (d *Dashboard) privacy() *privacy.Service {
	return &privacy.Service{Store: d.Store, Audit: d.Audit}
}

// ExportVisitor downloads the same JSON as the management API's export.
func (d *Dashboard) ExportVisitor(w http.ResponseWriter, r *http.Request) {
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	out, err := d.privacy().Export(r.Context(), user(r).AccountID, c.VisitorID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", `attachment; filename="visitor-`+fileSafe(c.VisitorID)+`.json"`)
	if err := json.NewEncoder(w).Encode(out); err != nil {
		d.Logger.Warn("writing a visitor export", "err", err)
	}
}

// DeleteVisitorPage asks to confirm the erasure.
func (d *Dashboard) DeleteVisitorPage(w http.ResponseWriter, r *http.Request) {
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "visitordelete", view{Title: "privacy.deletetitle", Nav: "inbox", Data: c})
}

// DeleteVisitor erases the visitor's data (a POST from the confirm page)
// and returns to the inbox with a notice.
func (d *Dashboard) DeleteVisitor(w http.ResponseWriter, r *http.Request) {
	c, err := d.conversation(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if err := d.privacy().Delete(r.Context(), user(r).AccountID, c.VisitorID); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/inbox?flash=privacy.deleted", http.StatusSeeOther)
}

// fileSafe keeps a visitor id's letters, digits, '-' and '_' for a file
// name (ids are the widget's, any text).
func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		s = "data"
	}
	return s
}
