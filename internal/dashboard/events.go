package dashboard

import (
	"fmt"
	"net/http"
	"time"

	"parley/internal/chat"
)

// heartbeat keeps idle event streams open through proxies.
const heartbeat = 25 * time.Second

// Events is a Server-Sent Events stream that says "change" whenever
// something happens in the account (the inbox) or in one conversation
// (?conversation=ID: its own topic, which the visitor's long poll shares,
// and its team topic, for what only the team sees: notes, the visitor
// typing). It carries no data: the page re-fetches what it shows, so a
// missed or merged event can delay an update but never corrupt one.
func (d *Dashboard) Events(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	own, team := chat.AccountTopic(u.AccountID), "" // the inbox has no team topic
	if id := r.URL.Query().Get("conversation"); id != "" {
		c, err := d.Store.Conversation(r.Context(), id)
		if err != nil || c.AccountID != u.AccountID {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		own, team = c.ID, chat.TeamTopic(c.ID)
	}
	// Subscribed before the stream opens, so that a change made once the
	// client has seen it open is told; and again before writing each
	// event, so that a change made while we write is not missed.
	woken, cancel := d.Notifier.Subscribe(own)
	var teamWoken <-chan struct{} // nil, never ready, for the inbox
	teamCancel := func() {}
	if team != "" {
		teamWoken, teamCancel = d.Notifier.Subscribe(team)
	}
	defer func() { cancel(); teamCancel() }()
	rc := http.NewResponseController(w)
	// A stream outlives the server's write timeout; extend it per event.
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 3000\n\n")
	if rc.Flush() != nil {
		return
	}
	// An open stream is an open tab: the operator is online (desk.go),
	// even where the browser slows a hidden tab's timers.
	d.heartbeat(r)
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-woken:
			cancel()
			woken, cancel = d.Notifier.Subscribe(own)
		case <-teamWoken:
			teamCancel()
			teamWoken, teamCancel = d.Notifier.Subscribe(team)
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			d.heartbeat(r)
			continue
		case <-r.Context().Done():
			return
		case <-d.stopping:
			return
		}
		if _, err := fmt.Fprint(w, "event: change\ndata: {}\n\n"); err != nil || rc.Flush() != nil {
			return
		}
	}
}
