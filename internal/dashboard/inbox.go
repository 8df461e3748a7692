package dashboard

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"parley/internal/domain"
	"parley/internal/store"
)

// maxSearch is the longest search text, in characters.
const maxSearch = 200

// inboxData is the inbox page.
type inboxData struct {
	Rows   []inboxRow
	Agents []domain.Agent
	Agent  string // filter values, as sent
	Mode   string // "", "ai", "human" or "waiting"
	Search string
	// View is the desk's filter (issue 19): "" the open conversations,
	// "mine", "unassigned", "waiting", "resolved" or "all".
	View string
	Next string // the next page's URL, "" on the last page
	Live string // the URL of this page's rows, for live updates
}

type inboxRow struct {
	domain.Conversation
	AgentName string
	Status    string // "ai", "human" or "waiting"
}

func status(c domain.Conversation) string {
	switch {
	case c.Mode == domain.ModeHuman:
		return "human"
	case c.Waiting:
		return "waiting"
	}
	return "ai"
}

// Inbox lists the account's conversations, newest first, filtered and
// paged. With ?partial=1 it renders only the rows, for live updates.
func (d *Dashboard) Inbox(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	q := r.URL.Query()
	// The search scans message texts; a bounded length keeps it cheap.
	data := inboxData{Agent: q.Get("agent"), Mode: q.Get("mode"), Search: shorten(strings.TrimSpace(q.Get("q")), maxSearch)}
	f := store.ConversationFilter{AgentID: data.Agent, Search: data.Search, Before: q.Get("cursor"), Limit: 50}
	switch data.Mode {
	case "ai", "human":
		f.Mode = domain.Mode(data.Mode)
	case "waiting":
		yes := true
		f.Mode, f.Waiting = domain.ModeAI, &yes
	default:
		data.Mode = ""
	}
	data.View = inboxView(q.Get("view"), u.ID, &f)
	page, err := d.Store.Conversations(r.Context(), u.AccountID, f)
	if errors.Is(err, store.ErrBadCursor) {
		http.Redirect(w, r, "/inbox", http.StatusSeeOther)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if data.Agents, err = d.Store.Agents(r.Context(), u.AccountID); err != nil {
		d.fail(w, r, err)
		return
	}
	names := map[string]string{}
	for _, a := range data.Agents {
		names[a.ID] = a.ChatbotName
	}
	for _, c := range page.Conversations {
		data.Rows = append(data.Rows, inboxRow{Conversation: c, AgentName: names[c.AgentID], Status: status(c)})
	}
	filters := url.Values{}
	for _, k := range []string{"agent", "mode", "q", "view"} {
		if v := q.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	live := url.Values{"partial": {"1"}}
	maps.Copy(live, filters)
	if c := q.Get("cursor"); c != "" {
		live.Set("cursor", c)
	}
	data.Live = "/inbox?" + live.Encode()
	if page.Next != "" {
		next := url.Values{"cursor": {page.Next}}
		maps.Copy(next, filters)
		data.Next = "/inbox?" + next.Encode()
	}
	if q.Get("partial") == "1" {
		d.renderPartial(w, r, "inbox", "rows", data)
		return
	}
	d.render(w, r, http.StatusOK, "inbox", view{Title: "inbox.title", Nav: "inbox", Data: data})
}

// renderPartial renders one named template of a page without the layout,
// for the live-update script to swap in.
func (d *Dashboard) renderPartial(w http.ResponseWriter, r *http.Request, page, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	err := d.pages[page].ExecuteTemplate(w, name, view{Lang: language(r), Data: data})
	if err != nil {
		d.Logger.Error("rendering partial", "page", page, "name", name, "err", err)
	}
}

// inboxView applies the inbox's view to f and returns it as understood:
// the open conversations by default (resolved ones leave the list),
// mine or unassigned among them, those waiting for a human, the resolved
// ones, or all.
func inboxView(view, userID string, f *store.ConversationFilter) string {
	f.Status = domain.StatusOpen
	switch view {
	case "mine":
		f.Assignee = &userID
	case "unassigned":
		none := ""
		f.Assignee = &none
	case "waiting":
		yes := true
		f.Mode, f.Waiting = domain.ModeAI, &yes
	case "resolved":
		f.Status = domain.StatusResolved
	case "all":
		f.Status = ""
	default:
		view = ""
	}
	return view
}
