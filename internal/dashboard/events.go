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
// (?conversation=ID). It carries no data: the page re-fetches what it
// shows, so a missed or merged event can delay an update but never
// corrupt one.
func (d *Dashboard) Events(w http.ResponseWriter, r *http.Request) {
	u := user(r)
	topic := chat.AccountTopic(u.AccountID)
	if id := r.URL.Query().Get("conversation"); id != "" {
		c, err := d.Store.Conversation(r.Context(), id)
		if err != nil || c.AccountID != u.AccountID {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		topic = c.ID
	}
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
	// Subscribe again before writing each event, so a change that happens
	// while we write is not missed.
	woken, cancel := d.Notifier.Subscribe(topic)
	defer func() { cancel() }()
	for {
		select {
		case <-woken:
			cancel()
			woken, cancel = d.Notifier.Subscribe(topic)
			if _, err := fmt.Fprint(w, "event: change\ndata: {}\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			d.heartbeat(r)
		case <-r.Context().Done():
			return
		case <-d.stopping:
			return
		}
	}
}
