package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"parley/internal/desk"
	"parley/internal/domain"
	"parley/internal/store"
)

// The operator desk (issue 19): resolve and reopen, an owner's
// assignment, presence (heartbeats and the away switch) and the account's
// auto-assign settings. The rules are internal/desk's.

// deskView is what the layout shows of the signed-in user's presence.
type deskView struct {
	Away bool
}

// heartbeat records that the user's dashboard is open: app.js posts to
// /presence every 20 s, well inside store.PresenceWindow, and the event
// stream calls it at each keep-alive. Failures are logged: presence is a hint.
func (d *Dashboard) heartbeat(r *http.Request) {
	if d.Desk == nil {
		return
	}
	u := user(r)
	if err := d.Desk.Heartbeat(r.Context(), u.AccountID, u.ID); err != nil {
		d.Logger.Warn("heartbeat failed", "user", u.ID, "err", err)
	}
}

// Presence is a tab's heartbeat: 204.
func (d *Dashboard) Presence(w http.ResponseWriter, r *http.Request) {
	if d.Desk == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	u := user(r)
	if err := d.Desk.Heartbeat(r.Context(), u.AccountID, u.ID); err != nil {
		d.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// SetAway is the header's away switch; it comes back to the page it was
// sent from (back, a path of this site).
func (d *Dashboard) SetAway(w http.ResponseWriter, r *http.Request) {
	if d.Desk == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	u := user(r)
	away := r.PostFormValue("away") == "1"
	if err := d.Desk.SetAway(r.Context(), u.AccountID, u.ID, away); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, localPath(r.PostFormValue("back"), "/inbox"), http.StatusSeeOther)
}

// localPath is p when it is a path on this site, else def.
func localPath(p, def string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return def
	}
	if u, err := url.Parse(p); err != nil || u.Host != "" || u.Scheme != "" {
		return def
	}
	return p
}

func (d *Dashboard) Resolve(w http.ResponseWriter, r *http.Request) {
	d.setStatus(w, r, true)
}

func (d *Dashboard) Reopen(w http.ResponseWriter, r *http.Request) {
	d.setStatus(w, r, false)
}

func (d *Dashboard) setStatus(w http.ResponseWriter, r *http.Request, resolve bool) {
	if d.Desk == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	change := d.Desk.Reopen
	if resolve {
		change = d.Desk.Resolve
	}
	if _, err := change(r.Context(), user(r).AccountID, r.PathValue("id")); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/conversations/"+url.PathEscape(r.PathValue("id")), http.StatusSeeOther)
}

// Assign: an owner gives the conversation to a member of the team.
func (d *Dashboard) Assign(w http.ResponseWriter, r *http.Request) {
	if d.Desk == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	_, err := d.Desk.Assign(r.Context(), user(r).AccountID, r.PathValue("id"), r.PostFormValue("user_id"))
	var inv *domain.InvalidError
	if errors.As(err, &inv) {
		d.showConversation(w, r, http.StatusBadRequest, conversationData{}, "desk.badassignee")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/conversations/"+url.PathEscape(r.PathValue("id")), http.StatusSeeOther)
}

// assignees are the team, for an owner's assign select.
type assignee struct {
	ID, Label string
	Online    bool
}

func (d *Dashboard) assignees(r *http.Request) ([]assignee, error) {
	u := user(r)
	users, err := d.Store.Users(r.Context(), u.AccountID)
	if err != nil {
		return nil, err
	}
	online := map[string]bool{}
	if d.Desk != nil {
		ops, err := d.Desk.Operators(r.Context(), u.AccountID)
		if err != nil {
			return nil, err
		}
		for _, o := range ops {
			online[o.UserID] = o.Online
		}
	}
	out := make([]assignee, 0, len(users))
	for _, m := range users {
		label := m.Name
		if label == "" {
			label = m.Email
		}
		out = append(out, assignee{ID: m.ID, Label: label, Online: online[m.ID]})
	}
	return out, nil
}

// deskTeam is the team page's desk section.
type deskTeam struct {
	Settings  store.DeskSettings
	Operators []desk.Operator
}

// SetDesk saves the account's auto-assign settings (the team page).
func (d *Dashboard) SetDesk(w http.ResponseWriter, r *http.Request) {
	if d.Desk == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	capText := strings.TrimSpace(r.PostFormValue("assign_cap"))
	if capText == "" {
		capText = "0"
	}
	n, err := strconv.Atoi(capText)
	if err == nil {
		err = d.Desk.SetSettings(r.Context(), user(r).AccountID, store.DeskSettings{AutoAssign: r.PostFormValue("auto_assign") == "1", Cap: n})
	}
	var inv *domain.InvalidError
	if err != nil && (errors.As(err, &inv) || n < 0 || capText != strconv.Itoa(n)) {
		d.showTeam(w, r, http.StatusBadRequest, teamData{}, "desk.badcap")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/team?flash=desk.saved", http.StatusSeeOther)
}
