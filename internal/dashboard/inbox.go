package dashboard

import (
	"errors"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"parley/internal/domain"
	"parley/internal/store"
)

// maxSearch is the longest search text, in characters.
const maxSearch = 200

// inboxData is the inbox page, and the list on the left of a
// conversation's page (the split view, issue 19).
type inboxData struct {
	Rows   []inboxRow
	Pinned []inboxRow // waiting for a human, on top (first page only)
	Agents []domain.Agent
	Agent  string // filter values, as sent
	Mode   string // "", "ai", "human" or "waiting"
	Search string
	// ShortSearch: the search is shorter than the text index's trigrams
	// and looks through the list's newest ShortWindow conversations only
	// (store.ShortSearch); the page says so.
	ShortSearch bool
	ShortWindow int
	// View is the desk's filter (issue 19): "" the open conversations,
	// "mine", "unassigned", "waiting", "resolved" or "all".
	View  string
	Next  string // the next page's URL, "" on the last page
	Live  string // the URL of this page's rows, for live updates
	Open  string // the conversation open beside the list, "" on /inbox
	Query string // the filters as a query ("?mode=waiting"), kept on the rows' links
}

type inboxRow struct {
	domain.Conversation
	AgentName string
	Status    string // "ai", "human" or "waiting"
	Unread    int    // the visitor's messages the signed-in user has not seen
	Waited    int    // minutes since the wait began, for waiting rows

	HTML template.HTML `json:"-"` // the row rendered (rowcache.go)
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

// maxPinned is how many waiting conversations the list pins on top.
const maxPinned = 20

// Inbox lists the account's conversations, latest activity first (the
// waiting ones longest waiting first; a search's results by their newest
// matching message, store.ByMatch), filtered and paged. With ?partial=1
// it renders only the rows, for live updates (?open=ID marks the
// conversation open beside them).
func (d *Dashboard) Inbox(w http.ResponseWriter, r *http.Request) {
	data, err := d.inboxList(r, r.URL.Query().Get("open"))
	if errors.Is(err, store.ErrBadCursor) {
		http.Redirect(w, r, "/inbox", http.StatusSeeOther)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if r.URL.Query().Get("partial") == "1" {
		d.renderPartial(w, r, "inbox", "rows", data)
		return
	}
	d.render(w, r, http.StatusOK, "inbox", view{Title: "inbox.title", Nav: "inbox", Data: data})
}

// inboxList reads the list of the inbox's filters in r's query: the
// waiting conversations pinned on top (on the first page), then the page,
// with the signed-in user's unread counts. open is the conversation shown
// beside it, "" for none.
func (d *Dashboard) inboxList(r *http.Request, open string) (inboxData, error) {
	u := user(r)
	q := r.URL.Query()
	// The search scans message texts; a bounded length keeps it cheap.
	data := inboxData{Agent: q.Get("agent"), Mode: q.Get("mode"), Search: shorten(strings.TrimSpace(q.Get("q")), maxSearch), Open: open}
	f := store.ConversationFilter{AgentID: data.Agent, Search: data.Search, Before: q.Get("cursor"), Limit: 50}
	data.ShortSearch, data.ShortWindow = data.Search != "" && store.ShortSearch(data.Search), store.ShortSearchWindow
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
	// The list goes by latest activity, so a new message brings its
	// conversation to the top; the queue of those waiting for a human goes
	// longest waiting first. A search's page goes by each conversation's
	// newest matching message whatever the order (this one picks only a
	// short search's window: store.ConversationFilter.PageOrder).
	f.Order = store.ByActivity
	if f.Waiting != nil {
		f.Order = store.ByWaiting
	}
	page, err := d.Store.Conversations(r.Context(), u.AccountID, f)
	if err != nil {
		return data, err
	}
	// Waiting conversations go on top, however old, longest waiting
	// first; only on the first page and when the filters would show them,
	// and not in search results (a second scan of the messages for the
	// same text).
	var pinned []domain.Conversation
	if f.Before == "" && data.Search == "" && (data.Mode == "" || data.Mode == "waiting") {
		yes := true
		// The desk's view holds for them too (open ones by default, mine...).
		pf := store.ConversationFilter{AgentID: data.Agent, Mode: domain.ModeAI, Waiting: &yes, Status: f.Status, Assignee: f.Assignee,
			Order: store.ByWaiting, Limit: maxPinned}
		pp, err := d.Store.Conversations(r.Context(), u.AccountID, pf)
		if err != nil {
			return data, err
		}
		pinned = pp.Conversations
	}
	if data.Agents, err = d.Store.Agents(r.Context(), u.AccountID); err != nil {
		return data, err
	}
	names := map[string]string{}
	for _, a := range data.Agents {
		names[a.ID] = a.ChatbotName
	}
	ids := make([]string, 0, len(pinned)+len(page.Conversations))
	isPinned := map[string]bool{}
	for _, c := range pinned {
		isPinned[c.ID] = true
		ids = append(ids, c.ID)
	}
	for _, c := range page.Conversations {
		if !isPinned[c.ID] {
			ids = append(ids, c.ID)
		}
	}
	unread := map[string]int{}
	if d.DeskView != nil {
		if unread, err = d.DeskView.Unread(r.Context(), u.ID, ids); err != nil {
			return data, err
		}
	}
	now := d.Now()
	row := func(c domain.Conversation) inboxRow {
		ir := inboxRow{Conversation: c, AgentName: names[c.AgentID], Status: status(c), Unread: unread[c.ID]}
		if c.ID == open {
			ir.Unread = 0 // being read: its page marks what it shows
		}
		if ir.Status == "waiting" {
			ir.Waited = max(0, int(now.Sub(c.WaitingSince)/time.Minute))
		}
		return ir
	}
	for _, c := range pinned {
		data.Pinned = append(data.Pinned, row(c))
	}
	for _, c := range page.Conversations {
		if !isPinned[c.ID] {
			data.Rows = append(data.Rows, row(c))
		}
	}
	filters := url.Values{}
	for _, k := range []string{"agent", "mode", "q", "view"} {
		if v := q.Get(k); v != "" {
			filters.Set(k, v)
		}
	}
	if len(filters) > 0 {
		data.Query = "?" + filters.Encode()
	}
	live := url.Values{"partial": {"1"}}
	maps.Copy(live, filters)
	if c := q.Get("cursor"); c != "" {
		live.Set("cursor", c)
	}
	if open != "" {
		live.Set("open", open)
	}
	data.Live = "/inbox?" + live.Encode()
	if page.Next != "" {
		next := url.Values{"cursor": {page.Next}}
		maps.Copy(next, filters)
		data.Next = "/inbox?" + next.Encode()
	}
	return data, d.renderRows(language(r), &data)
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
