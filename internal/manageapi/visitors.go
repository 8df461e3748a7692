package manageapi

import (
	"net/http"

	"parley/internal/httpx"
	"parley/internal/privacy"
)

// The privacy requests of issue 18 about one widget visitor, by the
// visitor_id their widget sent or a verified user_id (identity
// verification): the store matches either, so the URL's {id} is the one
// thing to name a visitor by. The rule and the JSON are internal/privacy's,
// which the dashboard's conversation page calls too.

// ExportVisitor: everything stored about the visitor in this account,
// their conversations oldest first, each with its whole transcript. A
// visitor with no conversation in the account is 404, another account's
// included.
func (a *API) ExportVisitor(w http.ResponseWriter, r *http.Request) {
	out, err := a.privacy().Export(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

// DeleteVisitor erases the visitor's conversations in this account with
// their messages: 204, or 404 like the export.
func (a *API) DeleteVisitor(w http.ResponseWriter, r *http.Request) {
	if err := a.privacy().Delete(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) privacy() *privacy.Service { return &privacy.Service{Store: a.store, Audit: a.audit} }
