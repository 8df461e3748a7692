package dashboard

import (
	"net/http"
	"strconv"

	"parley/internal/audit"
)

// auditData is the audit log page: a page of entries, newest first, and
// the link to the older ones.
type auditData struct {
	Page   audit.Page
	Action string // the filter, "" for all
}

// AuditLog shows the account's audit log to its owners (the route is
// behind Owner): what GET /api/v1/audit lists, a page at a time.
func (d *Dashboard) AuditLog(w http.ResponseWriter, r *http.Request) {
	f := audit.Filter{Action: r.URL.Query().Get("action")}
	if s := r.URL.Query().Get("before"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			d.render(w, r, http.StatusBadRequest, "error", view{Title: "audit.badcursor", Error: "audit.badcursor"})
			return
		}
		f.Before = n
	}
	page, err := d.Audit.List(r.Context(), user(r).AccountID, f)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.render(w, r, http.StatusOK, "audit", view{Title: "audit.title", Nav: "audit", Data: auditData{Page: page, Action: f.Action}})
}
