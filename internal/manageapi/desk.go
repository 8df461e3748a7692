package manageapi

import (
	"net/http"
	"net/url"
	"time"

	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/httpx"
	"parley/internal/store"
)

// The operator desk (issue 19): resolve and reopen, assignment, and the
// account's auto-assign settings with who is online. The rules are
// internal/desk's.

// WithDesk serves the desk's routes through svc.
func (a *API) WithDesk(svc *desk.Service) *API {
	a.desk = svc
	return a
}

// deskFilter reads the list's status and assignee filters: status open or
// resolved; assignee a user id, or "none" for the unassigned.
func deskFilter(q url.Values, f *store.ConversationFilter) error {
	switch st := domain.Status(q.Get("status")); st {
	case "", domain.StatusOpen, domain.StatusResolved:
		f.Status = st
	default:
		return domain.Invalid("status must be open or resolved")
	}
	if q.Has("assignee") {
		who := q.Get("assignee")
		switch who {
		case "":
			return domain.Invalid("assignee must be a user id or none")
		case "none":
			who = ""
		}
		f.Assignee = &who
	}
	return nil
}

type statusResponse struct {
	ID      string        `json:"id"`
	Status  domain.Status `json:"status"`
	Changed bool          `json:"changed"`
}

func (a *API) Resolve(w http.ResponseWriter, r *http.Request) {
	a.setStatus(w, r, domain.StatusResolved)
}

func (a *API) Reopen(w http.ResponseWriter, r *http.Request) {
	a.setStatus(w, r, domain.StatusOpen)
}

func (a *API) setStatus(w http.ResponseWriter, r *http.Request, st domain.Status) {
	if a.desk == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	change := a.desk.Resolve
	if st == domain.StatusOpen {
		change = a.desk.Reopen
	}
	changed, err := change(r.Context(), account(r).ID, r.PathValue("id"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, statusResponse{ID: r.PathValue("id"), Status: st, Changed: changed})
}

// Assign hands the conversation to a dashboard user of the account.
func (a *API) Assign(w http.ResponseWriter, r *http.Request) {
	if a.desk == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var in struct {
		UserID *string `json:"user_id"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.UserID == nil || *in.UserID == "" {
		httpx.Error(w, r, domain.Invalid("user_id is required"))
		return
	}
	c, err := a.desk.Assign(r.Context(), account(r).ID, r.PathValue("id"), *in.UserID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, toSummary(c))
}

type operatorJSON struct {
	UserID     string    `json:"user_id"`
	Name       string    `json:"name"`
	Online     bool      `json:"online"`
	Away       bool      `json:"away"`
	LastSeenAt time.Time `json:"last_seen_at"`
	Open       int       `json:"open_conversations"`
}

type deskJSON struct {
	AutoAssign      bool           `json:"auto_assign"`
	AssignCap       int            `json:"assign_cap"`
	OperatorsOnline int            `json:"operators_online"`
	Operators       []operatorJSON `json:"operators"`
}

// GetDesk: the settings and the operators' presence.
func (a *API) GetDesk(w http.ResponseWriter, r *http.Request) {
	if a.desk == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	a.writeDesk(w, r)
}

func (a *API) writeDesk(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), account(r).ID
	d, err := a.desk.Settings(ctx, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ops, err := a.desk.Operators(ctx, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := deskJSON{AutoAssign: d.AutoAssign, AssignCap: d.Cap, Operators: make([]operatorJSON, 0, len(ops))}
	for _, o := range ops {
		if o.Online {
			out.OperatorsOnline++
		}
		out.Operators = append(out.Operators, operatorJSON{UserID: o.UserID, Name: o.Name, Online: o.Online, Away: o.Away,
			LastSeenAt: o.LastSeen, Open: o.Open})
	}
	httpx.JSON(w, http.StatusOK, out)
}

// UpdateDesk changes the settings; fields left out keep their values.
func (a *API) UpdateDesk(w http.ResponseWriter, r *http.Request) {
	if a.desk == nil {
		httpx.Error(w, r, domain.ErrNotFound)
		return
	}
	var in struct {
		AutoAssign *bool `json:"auto_assign"`
		AssignCap  *int  `json:"assign_cap"`
	}
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx, id := r.Context(), account(r).ID
	d, err := a.desk.Settings(ctx, id)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.AutoAssign != nil {
		d.AutoAssign = *in.AutoAssign
	}
	if in.AssignCap != nil {
		d.Cap = *in.AssignCap
	}
	if err := a.desk.SetSettings(ctx, id, d); err != nil {
		httpx.Error(w, r, err)
		return
	}
	a.writeDesk(w, r)
}
