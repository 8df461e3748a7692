// Package notify wakes up whoever waits on a conversation (a visitor's long
// poll, the dashboard's live views) when something happens in it. The
// in-process Hub serves one instance; a database- or Redis-backed notifier
// with the same interface serves several.
package notify

import "sync"

// Notifier delivers "something changed" signals per topic (a
// conversation, an account's inbox). Signals carry no data: a woken waiter
// re-reads the store, so a lost or merged signal can delay an update but
// never corrupt one.
//
// Hints are the one deliberate exception (hint.go): a few bytes of state
// that is kept in each instance's memory and in no store, so a waiter
// woken on another instance could not re-read it — today who is typing
// (chat.Typing). A hint goes to a handler on every instance, which applies
// it and says whether the topic's waiters should wake. Hints stay hints:
// one lost (a Redis outage, a full queue) costs what it described, an
// indicator for a few seconds, and never stored data, which never travels
// in one.
type Notifier interface {
	// Subscribe returns a channel that is closed at the next Publish for the
	// topic, and a function that must be called when done waiting.
	Subscribe(topic string) (<-chan struct{}, func())
	Publish(topic string)
	// PublishHint hands h to the handlers of h.Kind on every instance
	// (this one's before it returns) and wakes the topic's waiters on each
	// instance where a handler reports a change, or where the kind has no
	// handler. Each other instance receives one instance's signals and
	// hints in the order they were published (a repeat of one still queued
	// is merged into the later one), so a hint published before a signal
	// is applied there before that signal wakes anyone.
	PublishHint(topic string, h Hint)
	// OnHint adds a handler for hints of kind, from this instance and the
	// others. Add handlers at startup, before hints of the kind flow.
	OnHint(kind string, apply HintHandler)
}

// Hub is the in-process Notifier. Waiters on one conversation share one
// channel, so a publish costs one close however many wait.
type Hub struct {
	mu    sync.Mutex
	waits map[string]*waiters

	hints hintHandlers
}

type waiters struct {
	ch   chan struct{}
	refs int
}

func NewHub() *Hub { return &Hub{waits: make(map[string]*waiters)} }

func (h *Hub) Subscribe(id string) (<-chan struct{}, func()) {
	h.mu.Lock()
	w := h.waits[id]
	if w == nil {
		w = &waiters{ch: make(chan struct{})}
		h.waits[id] = w
	}
	w.refs++
	h.mu.Unlock()

	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			h.mu.Lock()
			w.refs--
			// After a publish the entry is already gone (or replaced).
			if w.refs == 0 && h.waits[id] == w {
				delete(h.waits, id)
			}
			h.mu.Unlock()
		})
	}
}

func (h *Hub) Publish(id string) {
	h.mu.Lock()
	w := h.waits[id]
	delete(h.waits, id)
	h.mu.Unlock()
	if w != nil {
		close(w.ch)
	}
}

// Len is the number of conversations with waiters, for tests and metrics.
func (h *Hub) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waits)
}

// WakeAll wakes every waiter of every topic: after a time in which signals
// from other instances may have been missed, everyone re-reads the store.
func (h *Hub) WakeAll() {
	h.mu.Lock()
	all := h.waits
	h.waits = make(map[string]*waiters)
	h.mu.Unlock()
	for _, w := range all {
		close(w.ch)
	}
}
