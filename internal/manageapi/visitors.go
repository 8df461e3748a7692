package manageapi

import (
	"net/http"

	"parley/internal/audit"
	"parley/internal/httpx"
)

// The privacy requests of issue 18 about one widget visitor, by the
// visitor_id their widget sent. A verified user_id (identity verification)
// does not exist yet; when it does, these routes take it too (say a
// user: prefix or a query parameter) and the store gains the matching
// reads, so the URL's {id} stays the one thing to name a visitor by.

type visitorConversation struct {
	conversationSummary
	Messages []messageJSON `json:"messages"`
}

// ExportVisitor: everything stored about the visitor in this account,
// their conversations oldest first, each with its whole transcript. A
// visitor with no conversation in the account is 404, another account's
// included.
func (a *API) ExportVisitor(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	data, err := a.store.VisitorData(r.Context(), account(r).ID, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.audit.Record(r.Context(), account(r).ID, audit.VisitorExport, audit.Target("visitor", id))
	out := struct {
		VisitorID     string                `json:"visitor_id"`
		Conversations []visitorConversation `json:"conversations"`
	}{VisitorID: id, Conversations: make([]visitorConversation, 0, len(data))}
	for _, vc := range data {
		c := visitorConversation{conversationSummary: toSummary(vc.Conversation), Messages: make([]messageJSON, 0, len(vc.Messages))}
		for _, m := range vc.Messages {
			c.Messages = append(c.Messages, toMessageJSON(m))
		}
		out.Conversations = append(out.Conversations, c)
	}
	httpx.JSON(w, http.StatusOK, out)
}

// DeleteVisitor erases the visitor's conversations in this account with
// their messages: 204, or 404 like the export.
func (a *API) DeleteVisitor(w http.ResponseWriter, r *http.Request) {
	if err := a.store.DeleteVisitor(r.Context(), account(r).ID, r.PathValue("id")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.audit.Record(r.Context(), account(r).ID, audit.VisitorDelete, audit.Target("visitor", r.PathValue("id")))
	w.WriteHeader(http.StatusNoContent)
}
